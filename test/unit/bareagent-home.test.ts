import { chmodSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bareagentHome, checkpointsHome } from '../../src/connection/home';
import { ensurePrivateDir } from '../../src/connection/private-files';

test('the home is BAREAGENT_HOME, else $XDG_STATE_HOME/bareagent, else ~/.local/state/bareagent: never the current directory', () => {
  expect(bareagentHome({ BAREAGENT_HOME: '/srv/ba', XDG_STATE_HOME: '/x', HOME: '/home/u' })).toBe('/srv/ba');
  expect(bareagentHome({ BAREAGENT_HOME: 'rel', HOME: '/home/u' })).toBe(path.resolve('rel'));
  expect(bareagentHome({ XDG_STATE_HOME: '/home/u/state', HOME: '/home/u' })).toBe('/home/u/state/bareagent');
  expect(bareagentHome({ HOME: '/home/u' })).toBe('/home/u/.local/state/bareagent');
  // Empty means unset; a relative XDG_STATE_HOME is invalid by the XDG spec and ignored.
  expect(bareagentHome({ BAREAGENT_HOME: '', XDG_STATE_HOME: '', HOME: '/home/u' })).toBe('/home/u/.local/state/bareagent');
  expect(bareagentHome({ XDG_STATE_HOME: 'state', HOME: '/home/u' })).toBe('/home/u/.local/state/bareagent');
  expect(checkpointsHome({ HOME: '/home/u' })).toBe('/home/u/.local/state/bareagent/checkpoints');
});

test('an existing home made wider (by an older version, by hand) is narrowed to 0700; its parent keeps its mode', () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'home-mode-'));
  chmodSync(parent, 0o755);
  const home = path.join(parent, 'bareagent');
  mkdirSync(home, { mode: 0o755 });
  chmodSync(home, 0o755);
  ensurePrivateDir(home);
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(parent).mode & 0o777).toBe(0o755);
  const fresh = path.join(parent, 'a', 'b');
  ensurePrivateDir(fresh);
  expect(statSync(fresh).mode & 0o777).toBe(0o700);
});

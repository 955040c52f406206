import path from 'node:path';
import { bareagentHome, checkpointsHome } from '../../src/connection/home';

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

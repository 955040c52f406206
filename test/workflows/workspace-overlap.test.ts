/**
 * A worker refuses a run whose workspace holds its BAREAGENT_HOME (the server's database, the
 * page's token, the checkpoint stores) or lies inside it: the run fails at once as InvalidInput
 * naming both paths, before the model is called and before any tool, command or snapshot runs.
 * The worker reads BAREAGENT_HOME when a run starts, so each test sets it for this process.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AgentRunResult } from '../../src/common/wire';
import { Harness } from '../support/harness';

let h: Harness;
const suiteHome = process.env.BAREAGENT_HOME;

beforeAll(async () => {
  h = await Harness.create({ 'hunt': [{ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'state/ui-token' } }] }, { text: 'never' }], 'fine': [{ text: 'ok' }] });
  await h.startWorker();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  process.env.BAREAGENT_HOME = suiteHome;
});

async function refusal(workspace: string): Promise<ApplicationFailure> {
  const before = h.model.requests.length;
  const error = await h.execute({ prompt: 'find the token', model: 'hunt', workspace }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  // Refused before the first turn: the model was never asked, so no tool call could follow.
  expect(h.model.requests.length).toBe(before);
  return cause as ApplicationFailure;
}

test('a workspace that contains the home is refused, naming both paths, and nothing is written there', async () => {
  const workspace = h.workspace({ 'notes.md': 'hi\n' });
  const home = path.join(workspace, 'state');
  process.env.BAREAGENT_HOME = home;
  const failure = await refusal(workspace);
  expect(failure.type).toBe('InvalidInput');
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(`The workspace ${realpathSync(workspace)} contains`);
  expect(failure.message).toContain(path.join(realpathSync(workspace), 'state'));
  // No checkpoint store (nor anything else) was made inside the workspace.
  expect(existsSync(home)).toBe(false);
  expect(readdirSync(workspace)).toEqual(['notes.md']);
});

test('a workspace inside the home is refused, also when reached through a symlink', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-overlap-home-'));
  const inside = path.join(home, 'checkpoints', 'project');
  mkdirSync(inside, { recursive: true });
  const link = path.join(h.workspace(), 'looks-harmless');
  symlinkSync(inside, link);
  process.env.BAREAGENT_HOME = home;
  const failure = await refusal(link);
  expect(failure.type).toBe('InvalidInput');
  expect(failure.message).toContain(`The workspace ${realpathSync(inside)} lies inside`);
  expect(failure.message).toContain(realpathSync(home));
});

test('a home reached through a symlink inside the workspace is compared by its real path', async () => {
  const workspace = h.workspace();
  mkdirSync(path.join(workspace, 'real-state'));
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'bareagent-overlap-link-'));
  symlinkSync(path.join(workspace, 'real-state'), path.join(elsewhere, 'home'));
  process.env.BAREAGENT_HOME = path.join(elsewhere, 'home');
  const failure = await refusal(workspace);
  expect(failure.message).toContain(path.join(realpathSync(workspace), 'real-state'));
});

test('a workspace beside the home runs', async () => {
  process.env.BAREAGENT_HOME = mkdtempSync(path.join(os.tmpdir(), 'bareagent-overlap-beside-'));
  const result = (await h.execute({ prompt: 'hello', model: 'fine', workspace: h.workspace() })) as AgentRunResult;
  expect(result.text).toBe('ok');
});

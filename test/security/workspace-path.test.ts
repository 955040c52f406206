/**
 * A run works in the one workspace path it was checked against at its start, whatever a link
 * names afterwards (the path its settings read resolved). A fork given its workspace through a
 * link is refused: the red team's link named the victim's workspace while the fork was authorised
 * and the starter's own folder after it, and the fork ran with the victim's conversation in the
 * starter's folder.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decidePermissionUpdate, messagesQuery } from '../../src/common/contract';
import type { Message, ToolResultBlock } from '../../src/common/messages';
import { Harness } from '../support/harness';
import { pendingRequest } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

function results(messages: Message[]): Map<string, ToolResultBlock> {
  const found = new Map<string, ToolResultBlock>();
  for (const m of messages) if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') found.set(b.tool_use_id, b);
  return found;
}

/** Points `link` somewhere else atomically, as a starter racing the worker would. */
function repoint(link: string, target: string): void {
  const tmp = `${link}.tmp`;
  symlinkSync(target, tmp);
  renameSync(tmp, link);
}

test('a fork through a link to the victim\'s workspace is refused, whichever folder the link names when it is checked', async () => {
  const victim = h.workspace({ 'victim.txt': 'the victim\n' });
  const own = h.workspace({ 'mine.txt': 'the starter\n' });
  const originModel = `path-origin-${Math.random()}`;
  h.model.setScenario(originModel, [{ text: 'The victim said a secret.' }]);
  const origin = await h.start({ prompt: 'secret work', model: originModel, workspace: victim, stream: false });
  await origin.result();

  const link = path.join(mkdtempSync(path.join(os.tmpdir(), 'path-link-')), 'ws');
  symlinkSync(victim, link);
  for (const target of [victim, own]) {
    repoint(link, target);
    const forkModel = `path-fork-${Math.random()}`;
    h.model.setScenario(forkModel, [{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'fork-wrote.txt', content: 'x' } }] }, { text: 'Forked.' }]);
    const fork = await h.start({ prompt: 'go on', model: forkModel, workspace: link, stream: false, permissionMode: 'bypass', forkFrom: { workflowId: origin.workflowId } });
    await expect(fork.result()).rejects.toMatchObject({ cause: { type: 'InvalidInput' } });
    // The model never saw the victim's conversation, and neither folder got a byte.
    expect(h.model.requestsFor(forkModel)).toHaveLength(0);
    expect(JSON.stringify(await fork.fetchHistory())).not.toContain('The victim said a secret.');
  }
  expect(existsSync(path.join(victim, 'fork-wrote.txt'))).toBe(false);
  expect(existsSync(path.join(own, 'fork-wrote.txt'))).toBe(false);
  expect(readFileSync(path.join(own, 'mine.txt'), 'utf8')).toBe('the starter\n');
}, 120_000);

test('a plain run on a workspace given as a link keeps its start folder when the link is re-pointed while a question waits', async () => {
  const authorised = h.workspace({ 'start.txt': 'the folder the run started in\n' });
  const other = h.workspace({ 'mine.txt': 'another folder\n' });
  const link = path.join(mkdtempSync(path.join(os.tmpdir(), 'path-link-')), 'ws');
  symlinkSync(authorised, link);
  const model = `path-plain-${Math.random()}`;
  h.model.setScenario(model, [
    { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo asked > asked.txt' } }] },
    {
      toolCalls: [
        { id: 'r1', name: 'read_file', arguments: { file_path: 'mine.txt' } },
        { id: 'w1', name: 'write_file', arguments: { file_path: 'later.txt', content: 'x' } },
        { id: 'b2', name: 'bash', arguments: { command: 'pwd' } },
      ],
    },
    { text: 'Done.' },
  ]);
  const run = await h.start({ prompt: 'work', model, workspace: link, stream: false, permissionRules: { allow: ['read_file', 'write_file', 'bash(pwd)'] } });
  const question = await pendingRequest(run, 'b1');
  // While the human reads the question, the link moves to another folder.
  repoint(link, other);
  await run.executeUpdate(decidePermissionUpdate, { args: [{ requestId: question.requestId, decision: 'allow' }] });
  expect(await run.result()).toMatchObject({ text: 'Done.' });
  const got = results(await run.query(messagesQuery));
  // The asked command, and every tool after it, ran in the folder the run started in.
  expect(readFileSync(path.join(authorised, 'asked.txt'), 'utf8')).toBe('asked\n');
  expect(existsSync(path.join(authorised, 'later.txt'))).toBe(true);
  expect(got.get('r1')?.content).toBe('Error: FileNotFoundError: No such file or directory: mine.txt');
  expect(got.get('b2')?.content).toContain(authorised);
  // Nothing was written in the folder the link names now.
  expect(existsSync(path.join(other, 'asked.txt'))).toBe(false);
  expect(existsSync(path.join(other, 'later.txt'))).toBe(false);
  expect(readFileSync(path.join(other, 'mine.txt'), 'utf8')).toBe('another folder\n');
}, 120_000);

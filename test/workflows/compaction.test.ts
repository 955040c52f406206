import { estimateTextTokens } from '../../src/loop/token-count';
import { Harness } from '../support/harness';
import type { ScriptStep } from '../support/scripted-model-server';
import { messagesQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const BIG = 'x'.repeat(2000);
const files = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`f${n}.txt`, `${BIG}${n}\n`]));
const reads = [1, 2, 3, 4, 5].map((n) => ({ toolCalls: [{ id: `r${n}`, name: 'read_file', arguments: { file_path: `f${n}.txt` } }] }));

/** Agent turns from `turns`; a request without tools is the compaction's summary call. */
function withSummary(turns: ScriptStep[], summary: ScriptStep) {
  let turn = 0;
  return (body: { tools?: unknown[] }) => (body.tools ? turns[turn++] : summary);
}

test('micro compaction: all but the last 3 tool results become placeholders', async () => {
  h.model.setScenario('micro', withSummary([...reads, { text: 'read them all' }], { text: 'unused' }));
  const handle = await h.start({ prompt: 'read', model: 'micro', workspace: h.workspace(files), compaction: { thresholdTokens: 2000 } });
  expect(await handle.result()).toMatchObject({ text: 'read them all' });
  const results = (await handle.query(messagesQuery))
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .map((m) => (m.content as Array<{ content: string }>)[0]?.content ?? '');
  expect(results.slice(0, 2)).toEqual(['[truncated: read_file result, 2004 chars]', '[truncated: read_file result, 2004 chars]']);
  expect(results.slice(2).every((r) => r.startsWith('1: xxx'))).toBe(true);
  const steps = await handle.query(stepsQuery);
  expect(steps.some((s) => s.reason === 'compacted:micro' && /context too long/.test(s.detail ?? ''))).toBe(true);
  // The model never saw more than the threshold allows plus the newest results.
  const last = h.model.requestsFor('micro').at(-1)?.body;
  expect(JSON.stringify(last.messages)).toContain('[truncated: read_file result');
});

test('full compaction: a model-written summary replaces the older turns', async () => {
  h.model.setScenario('full', withSummary([...reads, { text: 'done after summary' }], { text: 'Read f1..f3; all hold x.' }));
  const handle = await h.start({
    prompt: 'read',
    model: 'full',
    workspace: h.workspace(files),
    compaction: { thresholdTokens: 600, keepRecentToolResults: 1, keepRecentMessages: 2 },
  });
  expect(await handle.result()).toMatchObject({ text: 'done after summary' });
  const messages = await handle.query(messagesQuery);
  expect(messages[0]).toEqual({ role: 'user', content: 'read' });
  expect(messages[1]?.content).toBe('<compacted-summary>\nRead f1..f3; all hold x.\n</compacted-summary>');
  const summaryCall = h.model.requestsFor('full').find((r) => !r.body.tools);
  expect(summaryCall?.body.messages.at(-1).content).toContain('f1.txt');
  expect((await handle.query(stepsQuery)).some((s) => s.reason === 'compacted:full')).toBe(true);
});

test('models.compaction: the summary is written by the compaction model, the turns by the run\'s', async () => {
  h.model.setScenario('turns-model', withSummary([...reads, { text: 'done after summary' }], { text: 'unused' }));
  h.model.setScenario('summary-model', () => ({ text: 'Read f1..f3; all hold x.' }));
  const handle = await h.start({
    prompt: 'read',
    model: 'turns-model',
    models: { compaction: 'summary-model' },
    workspace: h.workspace(files),
    compaction: { thresholdTokens: 600, keepRecentToolResults: 1, keepRecentMessages: 2 },
  });
  expect(await handle.result()).toMatchObject({ text: 'done after summary' });
  expect((await handle.query(messagesQuery))[1]?.content).toBe('<compacted-summary>\nRead f1..f3; all hold x.\n</compacted-summary>');
  expect(h.model.requestsFor('summary-model').length).toBeGreaterThan(0);
  expect(h.model.requestsFor('summary-model').every((r) => !r.body.tools)).toBe(true);
  expect(h.model.requestsFor('turns-model').every((r) => r.body.tools)).toBe(true);
});

test('a failed summary restores the history from the backup and the run goes on', async () => {
  h.model.setScenario('broken-summary', withSummary([...reads, { text: 'still fine' }], { status: 400, errorMessage: 'summary refused' }));
  const handle = await h.start({
    prompt: 'read',
    model: 'broken-summary',
    workspace: h.workspace(files),
    stream: false,
    compaction: { thresholdTokens: 600, keepRecentToolResults: 1, keepRecentMessages: 2 },
  });
  expect(await handle.result()).toMatchObject({ text: 'still fine' });
  const messages = await handle.query(messagesQuery);
  expect(messages.some((m) => typeof m.content === 'string' && m.content.includes('<compacted-summary>'))).toBe(false);
  expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(6);
  const failed = (await handle.query(stepsQuery)).find((s) => s.reason === 'compaction_failed');
  expect(failed?.detail).toContain('summary refused');
  expect(failed?.detail).toContain('restored from the backup');
});

describe('counting tokens as the provider does', () => {
  const chinese = (n: number) => `第${n}章：这个项目的说明文档，记录了每个模块的设计、接口和测试方法。`.repeat(50);
  const cjkFiles = Object.fromEntries([1, 2, 3].map((n) => [`c${n}.txt`, `${chinese(n)}\n`]));

  test('a Chinese transcript compacts before the provider would refuse it', async () => {
    // A provider that counts Chinese as it is counted: about a token a character.
    const turns = [1, 2, 3].map((n) => ({ toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: { file_path: `c${n}.txt` } }] }));
    let turn = 0;
    h.model.setScenario('chinese', (body: { tools?: unknown[]; messages: unknown[] }) => {
      const usage = { prompt_tokens: estimateTextTokens(JSON.stringify(body.messages)), completion_tokens: 10 };
      return { ...(turns[turn++] ?? { text: '读完了。' }), usage };
    });
    const handle = await h.start({
      prompt: '读这三个文件',
      model: 'chinese',
      workspace: h.workspace(cjkFiles),
      compaction: { thresholdTokens: 3000, keepRecentToolResults: 1 },
    });
    expect(await handle.result()).toMatchObject({ text: '读完了。' });
    const steps = await handle.query(stepsQuery);
    // About 1,700 tokens a file: over 3,000 once two results are in; four characters a token would see ~1,300 for all three.
    expect(steps.filter((s) => s.reason === 'compacted:micro').length).toBeGreaterThanOrEqual(1);
  });

  test("the provider's count of the last call decides, also when the text looks short (~300 tokens by estimate)", async () => {
    let turn = 0;
    h.model.setScenario('counted', () => {
      turn += 1;
      if (turn === 1) return { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'small.txt' } }], usage: { prompt_tokens: 60_000, completion_tokens: 5 } };
      return { text: 'done', usage: { prompt_tokens: 10, completion_tokens: 1 } };
    });
    const handle = await h.start({ prompt: 'read', model: 'counted', workspace: h.workspace({ 'small.txt': `${'short text '.repeat(100)}\n` }), compaction: { keepRecentToolResults: 0 } });
    expect(await handle.result()).toMatchObject({ text: 'done' });
    const steps = await handle.query(stepsQuery);
    expect(steps.find((s) => s.reason === 'compacted:micro')?.detail).toMatch(/^context too long: ~60\d{3} → /);
  });
});

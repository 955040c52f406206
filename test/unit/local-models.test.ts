import { describeAttachments } from '../../src/common/attachments';
import { parseAgentRunInput } from '../../src/common/input';
import { PROFILE_NAMES, withProfile } from '../../src/common/profiles';
import { buildRunInput } from '../../src/cli/run-input';
import { UsageError } from '../../src/runs/usage-error';
import { trialInput } from '../../src/eval/trial';
import { findMentions } from '../../src/loop/mentions';
import { settingsBody } from '../../src/activities/model/providers/openai/settings-body';

describe('findMentions', () => {
  test('@path and @dir/ at the start of a token, punctuation around them dropped, each once', () => {
    expect(findMentions('Fix @src/a.ts, then see (@docs/) and `@b.py`. Again @src/a.ts!', 'at')).toEqual([
      { path: 'src/a.ts', explicit: true },
      { path: 'docs/', explicit: true },
      { path: 'b.py', explicit: true },
    ]);
  });

  test('an e-mail address, a URL and a bare @ are not mentions', () => {
    expect(findMentions('mail me@example.com or see @https://x.io/a.ts and @ alone', 'at')).toEqual([]);
  });

  test('plain: paths with a directory or an extension, not versions or words; @ mentions stay explicit', () => {
    expect(findMentions('In src/util.py and README.md (not Qwen2.5 or 1.5B, nor words) fix @a.js', 'plain')).toEqual([
      { path: 'a.js', explicit: true },
      { path: 'src/util.py', explicit: false },
      { path: 'README.md', explicit: false },
    ]);
  });

  test('off finds nothing; a long paste sends at most 32 candidates', () => {
    expect(findMentions('@a.js', 'off')).toEqual([]);
    const paste = Array.from({ length: 100 }, (_, i) => `f${i}.txt`).join(' ');
    expect(findMentions(paste, 'plain')).toHaveLength(32);
  });
});

describe('profiles', () => {
  test('small-local sets the final answer tool, plain paths, sampling and caps; the input wins field by field', () => {
    const parsed = parseAgentRunInput({ prompt: 'x', profile: 'small-local', modelSettings: { temperature: 0.7 }, attachments: { maxFiles: 2 } });
    expect(parsed.ok && parsed.config).toMatchObject({
      finalAnswer: 'tool',
      attachMentionedPaths: 'plain',
      modelSettings: { temperature: 0.7, maxOutputTokens: 1024 },
      attachments: { maxFiles: 2, maxFileChars: 8_000, maxTotalChars: 12_000 },
      draftFirst: true,
    });
    expect(parseAgentRunInput({ prompt: 'x', profile: 'small-local', draftFirst: false })).toMatchObject({ config: { draftFirst: false } });
    // Its guidance goes to the system prompt before the input's own addition, which is kept.
    const appended = parseAgentRunInput({ prompt: 'x', profile: 'small-local', appendSystemPrompt: 'Be brief.' });
    expect(appended.ok && appended.config.appendSystemPrompt).toMatch(/^To change a small file \(under about 80 lines\), call write_file with its whole new content instead of edit_file, keeping everything you do not change \(other functions, imports, module\.exports\) as it is\. Before final_answer, run the code's own examples or tests .*\n\nBe brief\.$/s);
  });

  test('without a profile the defaults are unchanged: text answers, @ mentions only, no model settings', () => {
    const parsed = parseAgentRunInput({ prompt: 'x' });
    expect(parsed.ok && parsed.config).toMatchObject({ finalAnswer: 'text', attachMentionedPaths: 'at', draftFirst: false });
    expect(parsed.ok && parsed.config.modelSettings).toBeUndefined();
    expect(withProfile({ prompt: 'x' })).toEqual({ prompt: 'x' });
  });

  test('an unknown profile names the field and the known profiles: in the input, the run flags and the eval', () => {
    expect(parseAgentRunInput({ prompt: 'x', profile: 'tiny' })).toEqual({ ok: false, message: `Invalid agentRun input: profile: unknown profile "tiny"; known profiles: ${PROFILE_NAMES.join(', ')}` });
    expect(() => buildRunInput('x', { profile: 'tiny' })).toThrow(new UsageError('--profile: unknown profile "tiny"; known profiles: small-local'));
    expect(buildRunInput('x', { profile: 'small-local', attach: 'off' })).toMatchObject({ profile: 'small-local', attachMentionedPaths: 'off' });
    const input = trialInput({ name: 't', prompt: 'p', check: 'true' } as never, '/w', { taskQueue: 'q', maxIterations: 5, maxWallClock: '5m', stream: false, idPrefix: 'e', profile: 'small-local' });
    expect(input).toMatchObject({ profile: 'small-local' });
    expect(input.modelSettings).toBeUndefined(); // the profile's own sampling applies
  });
});

test('the request body: sampling settings as given (tool_choice is set by callModel)', () => {
  expect(settingsBody({ temperature: 0.2, maxOutputTokens: 2048 })).toEqual({ temperature: 0.2, max_tokens: 2048 });
});

test('what the terminal and the page say was attached: names and sizes, and why a mention attached nothing', () => {
  expect(
    describeAttachments({
      files: [
        { path: 'src/a.ts', kind: 'file', chars: 1234 },
        { path: 'docs/', kind: 'listing', chars: 80 },
        { path: 'big.log', kind: 'file', chars: 12_000, truncated: true },
      ],
      skipped: [{ path: '.env\u001b[2J', reason: 'denied' }],
    }),
  ).toBe('attached src/a.ts (1.2 kB), docs/ (listing, 80 B), big.log (12.0 kB, cut); not attached: .env\\x1b[2J (denied)');
});

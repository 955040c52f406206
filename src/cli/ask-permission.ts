import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import pc from 'picocolors';
import { visibleLines, visibleText } from '../common/visible-text';
import { inputDigest } from '../loop/input-digest';
import { decidedElsewhere, type Decided } from './decided-elsewhere';
import { LeftRunning } from './left-running';
import { questionText, type QuestionRequest } from './question-text';
import type { PermissionDecisionInput } from '../common/wire';
import { sendDecision } from '../runs/decisions';

/** What an answer typed at the prompt means: `a` allows for the rest of the run. */
export function parseAnswer(answer: string): PermissionDecisionInput['decision'] {
  const text = answer.trim();
  if (/^a(lways)?$/i.test(text)) return 'allow_always';
  return /^y(es)?$/i.test(text) ? 'allow' : 'deny';
}

/**
 * `Allow bash(rm -rf build)? [y/N/a]` in the terminal, answered through the decidePermission
 * update with the digest of the input shown; `a` also allows every later call the derived rule
 * matches, for the rest of the run. The question is shown whole (see questionText). It races the
 * run's own decision: an answer given anywhere else, or the run closing, withdraws the prompt at
 * once and says who answered. Ctrl-C leaves the question (and the CLI) with the run still waiting.
 */
export async function askInline(
  client: Client,
  workflowId: string,
  request: QuestionRequest,
  options: { fromOffset?: number; followed?: string } = {},
): Promise<void> {
  const question = questionText(workflowId, request);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const abort = new AbortController();
  const stopWatching = new AbortController();
  rl.on('SIGINT', () => abort.abort('interrupt'));
  let elsewhere: Decided | 'closed' | undefined;
  void decidedElsewhere(client, workflowId, request.requestId, options.fromOffset ?? 0, stopWatching.signal).then((decided) => {
    if (!decided || abort.signal.aborted) return;
    elsewhere = decided;
    abort.abort('decided');
  });
  try {
    if (question.lines.length > 0) console.log(question.lines.map((line) => (line.startsWith('⚠') ? pc.red(line) : pc.magenta(line))).join('\n'));
    const answer = await rl.question(pc.magenta(question.prompt), { signal: abort.signal });
    const typed = parseAnswer(answer);
    const decision = typed === 'allow_always' && !question.rule ? 'deny' : typed;
    await sendDecision(client, workflowId, {
      requestId: request.requestId,
      decision,
      reason: `${decision} in the terminal`,
      inputDigest: inputDigest(request.tool, request.input),
    });
  } catch (err) {
    if (abort.signal.reason === 'decided') {
      process.stdout.write('\n');
      console.log(pc.dim(elsewhere === 'closed' ? 'The question closed: the run ended before an answer from here.' : `Answered elsewhere: ${describeDecided(elsewhere)}`));
      return;
    }
    if (abort.signal.reason === 'interrupt' || (err as Error).name === 'AbortError') {
      process.stdout.write('\n');
      console.log(leftLines(options.followed ?? workflowId, workflowId, request).join('\n'));
      throw new LeftRunning(options.followed ?? workflowId);
    }
    console.error(pc.yellow(`Could not send the answer: ${visibleLines((err as Error).message)}`));
  } finally {
    stopWatching.abort();
    rl.close();
  }
}

function describeDecided(decided: Decided | undefined): string {
  if (!decided) return 'the question is closed';
  const rule = decided.rule ? `; ${visibleText(decided.rule)} allowed for the rest of the run` : '';
  return `${decided.decision === 'allow' ? 'allowed' : 'denied'} (${visibleText(decided.reason)})${rule}`;
}

/** What Ctrl-C at a question leaves behind: the run waits on, and how to reach it. */
function leftLines(followed: string, target: string, request: QuestionRequest): string[] {
  const until = request.deadline ? ` until ${request.deadline} (then it is denied)` : '';
  return [
    pc.yellow(`Left the question unanswered. Run ${followed} goes on and waits for an answer${until}.`),
    `  follow it:  bareagent follow ${followed}`,
    `  answer it:  bareagent approve ${target} ${request.requestId}   |   bareagent deny ${target} ${request.requestId}`,
    `  stop it:    bareagent cancel ${followed}`,
  ];
}

/** For a follower that cannot ask: `approve` shows the question first; the signal carries the digest of this input. */
export function howToAnswer(workflowId: string, request: QuestionRequest): string {
  const { requestId } = request;
  const payload = JSON.stringify({ requestId, decision: 'allow', inputDigest: inputDigest(request.tool, request.input) });
  return [
    `  answer from another shell:  bareagent approve ${workflowId} ${requestId}   (or: bareagent deny ...; approve --always: for the rest of the run)`,
    `  or with the Temporal CLI:   temporal workflow signal --workflow-id ${workflowId} --name permissionDecision --input '${payload}'`,
  ].join('\n');
}

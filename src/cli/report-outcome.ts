import pc from 'picocolors';
import { visibleJson, visibleLines, visibleText } from '../common/visible-text';
import type { RunOutcome } from '../runs/run-outcome';

const log = (line: string) => console.error(pc.dim(line));

/** The last lines of `run`, `start --follow` and `follow`: how the run ended and where to look. */
export function reportOutcome(outcome: RunOutcome, workflowId: string, link: string, json: boolean): void {
  if (json) {
    console.log(visibleJson({ workflowId, ui: link, ...outcome }));
    return;
  }
  if (outcome.status === 'completed') {
    const { iterations, usage } = outcome.result;
    log(`✔ done in ${iterations} iteration(s), ${usage.inputTokens} in / ${usage.outputTokens} out tokens · ${link}`);
  } else if (outcome.status === 'failed') {
    console.error(pc.red(`✘ run failed: ${visibleText(outcome.failureType)}: ${visibleLines(outcome.message)}`));
    log(`  history: ${link}`);
  } else {
    console.error(pc.yellow(`run ${outcome.status}: ${visibleLines(outcome.message)}`));
  }
}

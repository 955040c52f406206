import pc from 'picocolors';
import type { RunEvent } from '../common/events';
import { toolSummary } from '../common/tool-schemas';
import { visibleLines, visibleText } from '../common/visible-text';
import type { StepRecord } from '../common/wire';
import { describeAttachments } from '../common/attachments';

/**
 * The line an event shows as, for every event but the streamed text and the end of the run
 * (the displays handle those); undefined for events that show nothing of their own.
 * `width` bounds what the line quotes from the model, so that a narrow terminal gets short lines.
 * Everything a command, the model or a server wrote shows with its hidden characters written out.
 */
export function eventLine(event: RunEvent, width = 160): string | undefined {
  const room = Math.max(20, width - 4);
  switch (event.type) {
    case 'tool_call':
      return pc.cyan(`⏺ ${toolSummary(event.name, event.input, room)}`);
    case 'tool_result': {
      const lines = event.preview.split('\n').map(visibleText);
      const first = lines[0] ?? '';
      const more = lines.length > 1 ? ` (+${lines.length - 1} more line${lines.length === 2 ? '' : 's'})` : '';
      const cut = Math.min(100, room - more.length - 2);
      const shown = (first.length > cut ? `${first.slice(0, cut - 1)}…` : first) + more;
      return event.isError ? pc.red(`  ⎿ ${shown}`) : pc.dim(`  ⎿ ${shown || '(no output)'}`);
    }
    case 'status':
      return pc.yellow(visibleLines(event.message));
    case 'permission_request':
      return pc.magenta(`? permission needed: ${toolSummary(event.tool, event.input, room)} (request ${visibleText(event.requestId)})`);
    case 'permission_decided':
      return pc.magenta(`  ${event.decision === 'allow' ? '✔ allowed' : '✘ denied'}: ${visibleText(event.reason)}${event.rule ? ` (and ${visibleText(event.rule)} for the rest of this run)` : ''}`);
    case 'notification':
      return pc.blue(visibleLines(event.text));
    case 'attachments':
      return pc.blue(`⊕ ${describeAttachments(event)}`);
    case 'step':
      return pc.dim(describeStep(event.record as StepRecord, room));
    case 'failed':
      return pc.red(`✘ ${event.failureType}: ${visibleLines(event.message)}`);
    default:
      return undefined;
  }
}

/** `· step 3 next_turn · 2 new results · 188 iterations left`: why the step ended and what is left. */
export function describeStep(record: StepRecord, width = 160): string {
  const parts = [`· step ${record.step_id} ${record.reason}`];
  if (record.evidence_delta) parts.push(`${record.evidence_delta} new result${record.evidence_delta === 1 ? '' : 's'}`);
  const left = record.budget_after;
  if (left && typeof left.iterations === 'number') parts.push(`${left.iterations} iterations left`);
  if (left && typeof left.tokens === 'number') parts.push(`${left.tokens} tokens left`);
  const used = parts.join(' · ').length + 3;
  const room = Math.max(20, Math.min(100, width - used));
  const detail = visibleText(record.detail ?? '');
  if (detail) parts.push(detail.length > room ? `${detail.slice(0, room - 1)}…` : detail);
  return parts.join(' · ');
}

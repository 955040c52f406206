import { formatChars, type AttachResult, type Mention, type SkippedMention } from '../common/attachments';
import type { AgentRunConfig } from '../common/input';
import { findMentions } from '../loop/mentions';
import type { checkPermission, PermissionPolicy } from '../loop/permissions';
import { localReadTools, repeatableTools } from './activity-proxies';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';

export interface MentionContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  report: RunReporter;
  policy: PermissionPolicy;
  guard: typeof checkPermission;
  /** The run's tools: a mention is a read_file, so a run without read_file attaches nothing. */
  offered: ReadonlySet<string>;
}

/**
 * A message (the prompt or a follow-up) with the files it mentions attached (src/loop/mentions.ts):
 * the run's deny rules first, as for a read_file call, then one activity that reads them all
 * through read_file's own code; its result is in the history, so a replay never reads the
 * workspace again. A message that mentions nothing asks nothing (no patch marker, no activity).
 */
export async function withMentionedFiles(text: string, context: MentionContext): Promise<string> {
  const { config, state, report } = context;
  const mentions = findMentions(text, config.attachMentionedPaths);
  // A subagent's prompt is its parent model's text: it attaches only what the child could read_file itself.
  if (mentions.length === 0 || !context.offered.has('read_file')) return text;
  const allowed: Mention[] = [];
  const refused: SkippedMention[] = [];
  for (const mention of mentions) {
    const decision = context.guard(context.policy, 'read_file', { file_path: mention.path.replace(/\/+$/, '') || '.' });
    if (decision.behavior === 'allow') allowed.push(mention);
    else if (mention.explicit) refused.push({ path: mention.path, reason: decision.behavior === 'deny' ? `not attached: the run's rules deny reading it (${decision.reason})` : 'not attached: reading it asks a human; use read_file' });
  }
  const found: AttachResult = allowed.length > 0 ? await read(config, allowed) : { attachments: [], skipped: [] };
  const skipped = [...refused, ...found.skipped];
  if (found.attachments.length === 0 && skipped.length === 0) return text;
  state.attachments = [
    ...(state.attachments ?? []),
    ...found.attachments.map(({ path, kind, chars, truncated }) => ({ path, kind, chars, ...(truncated ? { truncated } : {}) })),
  ];
  report.publish({
    type: 'attachments',
    step: state.budget.iterations,
    files: found.attachments.map(({ path, kind, chars, truncated }) => ({ path, kind, chars, ...(truncated ? { truncated } : {}) })),
    skipped,
  });
  return [text, ...found.attachments.map(attachmentBlock), ...(skipped.length ? [skippedBlock(skipped)] : [])].join('\n\n');
}

function read(config: MentionContext['config'], mentions: Mention[]): Promise<AttachResult> {
  const local = !config.toolTaskQueue;
  const proxy = local ? localReadTools : repeatableTools;
  const summary = `attach ${mentions.map((m) => m.path).join(' ')}`.slice(0, 200);
  return proxy.attachMentions.executeWithOptions({ summary, ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) }, [
    {
      ...(config.workspace ? { workspace: config.workspace } : {}),
      mentions,
      limits: config.attachments,
      // Imports are read by the activity: it checks each with the run's guard, as a read_file call would be.
      ...(config.attachments.imports ? { imports: { mode: config.permissionMode, ...(config.permissionRules.deny?.length ? { deny: config.permissionRules.deny } : {}) } } : {}),
    },
  ]);
}

function attachmentBlock(attachment: AttachResult['attachments'][number]): string {
  const what = attachment.kind === 'file' ? 'numbered as read_file shows it' : 'directory listing';
  return `[Attached ${attachment.path} (${what}, ${formatChars(attachment.chars)}${attachment.truncated ? ', cut' : ''})]\n${attachment.text}\n[End of ${attachment.path}]`;
}

function skippedBlock(skipped: SkippedMention[]): string {
  return `[Mentioned but not attached]\n${skipped.map((s) => `- ${s.path}: ${s.reason}`).join('\n')}`;
}

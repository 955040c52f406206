import { z } from 'zod';
import type { PinnedFile } from './pinned-files';
import { isValidRule } from './permission-rule-syntax';

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'Stop', 'PermissionRequest', 'Notification'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const HookCommand = z.strictObject({
  type: z.literal('command').default('command'),
  command: z.string().min(1),
  /** Seconds; the hook is killed after it and the run goes on as if it said nothing. */
  timeout: z.number().positive().max(600).default(60),
});

const HookGroup = z.strictObject({
  /** A permission rule (`bash`, `bash(rm*)`, `mcp__github__*`); none or `*`: every tool. */
  matcher: z.string().optional().refine((m) => m === undefined || m === '*' || m === '' || isValidRule(m), { message: 'must be a permission rule such as bash(rm*)' }),
  hooks: z.array(HookCommand).min(1),
});

/** `.bareagent/settings.json` and the worker's BAREAGENT_HOOKS_FILE: Claude Code's `hooks` shape, rules as matchers. */
export const HooksSettings = z.object({
  hooks: z.partialRecord(z.enum(HOOK_EVENTS), z.array(HookGroup)).default({}),
});
export type HooksSettings = z.output<typeof HooksSettings>;

/** One hook to run, flattened and recorded in the run's state at its start. */
export interface HookSpec {
  event: HookEvent;
  matcher?: string;
  command: string;
  timeout: number;
  /** `worker` or `.bareagent/settings.json`. */
  source: string;
  /** The workspace files the command runs, with their digests at run start: each run of the hook checks them first. */
  pins?: PinnedFile[];
  /** Why it may run workspace code that no digest covers. */
  unpinned?: string;
}

export interface HooksConfig {
  hooks: HookSpec[];
  /** Settings files that could not be used, and why; their hooks are left out. */
  errors?: string[];
}

export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the hook was not run: a file it runs changed since the run started. */
  refused?: string;
}

import { z } from 'zod';

/**
 * What the commands of a run may reach over the network: nothing (the default), only the
 * named hosts (through a filtering proxy the worker runs), or everything the worker reaches.
 * The worker's operator caps what a run may ask for (BAREAGENT_SANDBOX_MAX_NETWORK).
 */
export const SandboxNetwork = z.union([
  z.literal('none'),
  z.literal('full'),
  z.strictObject({
    allowHosts: z
      .array(
        z
          .string()
          .trim()
          .regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/, { message: 'must be a host name such as "registry.npmjs.org" or "*.example.com", with an optional :port' }),
      )
      .min(1, { message: 'must name at least one host' }),
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'must be "none", "full" or { "allowHosts": ["host", ...] }' : undefined) });
export type SandboxNetwork = z.infer<typeof SandboxNetwork>;

/** The `sandbox` field of `AgentRunInput`: what a run opens up beyond the default sandbox. */
export const SandboxInput = z.strictObject({
  network: SandboxNetwork.default('none'),
  /** Absolute paths the run's commands may read (e.g. a package cache); everything else outside the workspace is hidden. */
  readOnlyPaths: z.array(z.string().startsWith('/', { message: 'must be an absolute path' })).default([]),
  /**
   * Lets the run's commands write the workspace's `.git` (an agent that commits). Off by default:
   * git on the user's machine runs what `.git` holds (hooks, fsmonitor, pager), so each command's
   * question names this choice.
   */
  writableGit: z.boolean().optional(),
});
export type SandboxInput = z.input<typeof SandboxInput>;
export type SandboxConfig = z.output<typeof SandboxInput>;

/** What a command activity is told by the workflow: the run's choices plus whether the workspace is writable. */
export interface SandboxRequest {
  network: SandboxNetwork;
  readOnlyPaths: string[];
  /** false in `plan` mode and for read-only agent types: the workspace is mounted read-only. */
  writableWorkspace: boolean;
  /** The run's `sandbox.writableGit`: `.git` stays writable for its commands. */
  writableGit?: boolean;
  /** Workspace files the run's acceptance command names (src/loop/acceptance-files.ts): bound read-only for its commands, refused to its file tools. */
  readOnlyFiles?: string[];
}

/** How a command was confined, reported back by the activity so `status` and the step records can show it. */
export type SandboxKind = 'bubblewrap' | 'off';

/** `none`, `full` or `hosts: a, b`: how status and step records show a network choice. */
export function describeNetwork(network: SandboxNetwork): string {
  if (typeof network === 'string') return network;
  return `hosts: ${network.allowHosts.join(', ')}`;
}

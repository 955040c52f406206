import path from 'node:path';
import type { SandboxKind, SandboxRequest } from '../common/sandbox';
import { commandEnv } from './command-env';
import { bwrapArgs, type PinnedCopy, type ProxyRelay, type SandboxNetworkPlan } from './bwrap-args';
import { findBinary } from './find-binary';
import { existingFilesInside, hostExecutedBinds, nestedGitBinds } from './host-executed-binds';
import { existingRealPaths, hostView } from './host-view';
import { launcherArgs, SECCOMP_FD } from './launcher';
import { networkCapError } from './network-cap';
import { operatorDirs } from './operator-dirs';
import { startHostProxy, type HostProxy } from './network-proxy';
import { createPidsCgroup, type PidsCgroup } from './pids-cgroup';
import { probeBwrap, unavailableMessage } from './sandbox-check';
import { SandboxConfigError, sandboxSettings, type SandboxSettings } from './sandbox-config';
import { sandboxBaseEnv, SANDBOX_PATH } from './sandbox-env';
import { SandboxError } from './sandbox-error';
import { noSetidFilter, printfEscaped } from './seccomp-no-setid';

/** The no-setid filter for this worker's architecture, as the launcher pipes it (empty: none). */
const SECCOMP_PROGRAM = ((filter) => (filter ? printfEscaped(filter) : ''))(noSetidFilter());

/** Inside the sandbox's own network namespace any port is free: socat listens here for the proxy. */
const PROXY_PORT = 3128;

export interface PreparedCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  kind: SandboxKind;
  /** What host tools run that the command found and could not write (real paths): `createdHostExecuted` compares against it. */
  protectedPaths?: string[];
  /** Stops the proxy and removes the cgroup; call once the process has ended. */
  cleanup(): Promise<void>;
}

export interface CommandPlace {
  workspace: string;
  cwd: string;
  sandbox: SandboxRequest;
  /** BAREAGENT_CALL_ID: the one variable a run adds to the fixed environment, so that a command can dedupe. */
  callId?: string;
  /** Verified copies bound over workspace files (bubblewrap only: unconfined commands see the workspace as it is). */
  pinnedCopies?: PinnedCopy[];
}

/** How one command will be started: unconfined `bash -c` when the operator switched the sandbox off, else bwrap. Throws SandboxError when it must not run. */
export async function prepareCommand(command: string, place: CommandPlace): Promise<PreparedCommand> {
  const settings = readSettings();
  if (!settings.enabled) {
    return { file: 'bash', args: ['-c', command], env: commandEnv(callEnv(place)), cwd: place.cwd, kind: 'off', cleanup: async () => {} };
  }
  // Binding / as the workspace would show the whole host, read-write.
  if (place.workspace === '/') throw new SandboxError('Sandbox: the workspace cannot be the root directory /');
  const capError = networkCapError(place.sandbox.network, settings.maxNetwork);
  if (capError) throw new SandboxError(`Sandbox: ${capError}`);
  const bwrap = findBinary(settings.bwrap, process.env.PATH) ?? settings.bwrap;
  const probe = probeBwrap(bwrap);
  if (!probe.ok) throw new SandboxError(unavailableMessage(probe));
  let proxy: HostProxy | undefined;
  let cgroup: PidsCgroup | undefined;
  try {
    const network = await networkPlan(place.sandbox);
    proxy = network.proxy;
    const env = { ...sandboxBaseEnv(), ...callEnv(place) };
    const writableGit = place.sandbox.writableGit === true;
    const protectedPaths = [
      ...hostExecutedBinds(place.workspace, writableGit),
      ...(writableGit ? [] : await nestedGitBinds(place.workspace)),
      ...existingFilesInside(place.workspace, place.sandbox.readOnlyFiles ?? []),
    ];
    const args = bwrapArgs({
      ...hostView(),
      operatorDirs: operatorDirs(),
      workspace: place.workspace,
      writableWorkspace: place.sandbox.writableWorkspace,
      cwd: place.cwd,
      readOnlyPaths: existingRealPaths([...settings.readPaths, ...place.sandbox.readOnlyPaths]),
      writablePaths: settings.writePaths,
      network: network.plan,
      env,
      command,
      ...(place.pinnedCopies?.length ? { pinnedCopies: place.pinnedCopies } : {}),
      protectedPaths,
      ...(SECCOMP_PROGRAM ? { seccompFd: SECCOMP_FD } : {}),
    });
    cgroup = createPidsCgroup(settings.limits.maxProcesses);
    const started = { proxy, cgroup };
    return {
      file: '/bin/bash',
      args: launcherArgs(settings.limits, cgroup?.procsFile, [bwrap, ...args], SECCOMP_PROGRAM),
      // bwrap's own /proc/<pid>/environ is readable inside (it is pid 1 there): it gets the sandbox's environment only.
      env,
      cwd: place.workspace,
      kind: 'bubblewrap',
      protectedPaths,
      cleanup: async () => {
        await started.proxy?.close();
        // The namespace's last processes may take a few ms to be reaped: the cgroup goes in the
        // background (killing any straggler) rather than delaying the result.
        void started.cgroup?.remove();
      },
    };
  } catch (err) {
    await proxy?.close();
    await cgroup?.remove();
    throw err;
  }
}

function callEnv(place: CommandPlace): Record<string, string> {
  return place.callId !== undefined ? { BAREAGENT_CALL_ID: place.callId } : {};
}

function readSettings(): SandboxSettings {
  try {
    return sandboxSettings();
  } catch (err) {
    if (err instanceof SandboxConfigError) throw new SandboxError(`Sandbox misconfigured: ${err.message}`);
    throw err;
  }
}

async function networkPlan(sandbox: SandboxRequest): Promise<{ plan: SandboxNetworkPlan; proxy?: HostProxy }> {
  if (sandbox.network === 'none') return { plan: { kind: 'none' } };
  if (sandbox.network === 'full') return { plan: { kind: 'full' } };
  const wanted = readSettings().relay;
  const socat = wanted === 'node' ? undefined : findBinary('socat', SANDBOX_PATH);
  if (wanted === 'socat' && !socat) throw new SandboxError('Sandbox: BAREAGENT_SANDBOX_RELAY=socat, and socat is not installed on this worker (apt-get install socat, or unset the variable for the Node relay)');
  const relay: ProxyRelay = socat ? { kind: 'socat', binary: socat } : { kind: 'node', binary: process.execPath };
  const proxy = await startHostProxy(sandbox.network.allowHosts);
  return { plan: { kind: 'proxy', socketDir: proxy.socketDir, port: PROXY_PORT, relay }, proxy };
}

/**
 * What host tools run by themselves that a command created while it ran (a `git init` making a new
 * `.git`, a `.envrc` where none was): bind mounts cover only what existed at its start. Relative to
 * the workspace; empty when the command ran writable Git or with no sandbox.
 */
export async function createdHostExecuted(workspace: string, before: readonly string[] | undefined, writableGit: boolean): Promise<string[]> {
  if (before === undefined || writableGit) return [];
  const known = new Set(before);
  const now = [...hostExecutedBinds(workspace, false), ...(await nestedGitBinds(workspace))];
  return now.filter((real) => !known.has(real)).map((real) => path.relative(workspace, real));
}

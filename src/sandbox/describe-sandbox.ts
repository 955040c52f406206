import type { SandboxKind } from '../common/sandbox';
import { findBinary } from './find-binary';
import { pidsCgroupBase } from './pids-cgroup';
import { probeBwrap, resetBwrapProbes, unavailableMessage } from './sandbox-check';
import { resetSandboxSettings, sandboxSettings } from './sandbox-config';

export interface SandboxState {
  kind: SandboxKind;
  /** false when the sandbox is on but cannot start: every command fails until the operator fixes it. */
  ok: boolean;
  detail: string;
}

/** The sandbox as this worker will apply it, for the start-up log (probes bwrap once, like the first command would). */
export function describeSandbox(): SandboxState {
  const settings = sandboxSettings();
  if (!settings.enabled) {
    return { kind: 'off', ok: true, detail: 'BAREAGENT_SANDBOX=off: commands run UNCONFINED with the worker\'s privileges, files and network' };
  }
  const probe = probeBwrap(findBinary(settings.bwrap, process.env.PATH) ?? settings.bwrap);
  if (!probe.ok) return { kind: 'bubblewrap', ok: false, detail: unavailableMessage(probe) };
  const { maxProcesses, maxMemoryMb, maxFileMb } = settings.limits;
  const cgroup = pidsCgroupBase();
  const processes = cgroup ? `${maxProcesses} (pids cgroup under ${cgroup})` : `${maxProcesses} (RLIMIT_NPROC only, which does not bind a root worker)`;
  return {
    kind: 'bubblewrap',
    ok: true,
    detail: `${probe.detail}; network at most "${settings.maxNetwork}"; processes ${processes}; memory ${maxMemoryMb} MiB; file size ${maxFileMb} MiB`,
  };
}

/** The line the worker prints at start; loud when commands run unconfined or cannot run at all. */
export function sandboxLogLine(state: SandboxState = describeSandbox()): string {
  if (state.kind === 'off') return `WARNING: command sandbox OFF. ${state.detail}`;
  if (!state.ok) return `WARNING: command sandbox UNAVAILABLE, every command will fail. ${state.detail}`;
  return `Command sandbox: ${state.detail}`;
}

/** Tests change the environment in-process: forget the settings and probes read so far. */
export function resetSandboxState(): void {
  resetSandboxSettings();
  resetBwrapProbes();
}

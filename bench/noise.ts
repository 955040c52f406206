/**
 * How busy the machine was with other work while a section ran: CPU time of the whole machine
 * (/proc/stat) minus that of this process and its descendants (dev servers, worker processes),
 * sampled every second so that a server stopped mid-section still counts as ours.
 * On a shared 2-core machine this is the figure that says how far to trust a latency.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

export interface Noise {
  /** Share of the machine's CPU (all cores) used by other processes, 0..1. */
  others: number;
  /** Share used by the bench (this process, its servers and workers). */
  own: number;
  loadAverage: number;
  seconds: number;
}

const TICKS_PER_SECOND = 100;

function machineBusyTicks(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return user + nice + system + irq + softirq + steal;
}

/** utime+stime of this process and of every live descendant, by pid. */
function ownTicksByPid(): Map<string, number> {
  const parents = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      ticks.set(Number(entry), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process ended meanwhile
    }
  }
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!ours.has(pid) && ours.has(ppid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  return new Map([...ours].map((pid) => [String(pid), ticks.get(pid) ?? 0]));
}

/** CPU seconds (user + system) of one process, or NaN when it is gone. */
export function processCpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

export class NoiseMeter {
  private readonly startedAt = Date.now();
  private readonly startBusy = machineBusyTicks();
  private readonly startOwn = ownTicksByPid();
  private readonly lastOwn = new Map(this.startOwn);
  private readonly timer = setInterval(() => this.sample(), 1000);

  private sample(): void {
    for (const [pid, ticks] of ownTicksByPid()) this.lastOwn.set(pid, Math.max(ticks, this.lastOwn.get(pid) ?? 0));
  }

  stop(): Noise {
    this.sample();
    clearInterval(this.timer);
    const seconds = (Date.now() - this.startedAt) / 1000;
    const capacity = seconds * TICKS_PER_SECOND * os.cpus().length;
    const busy = machineBusyTicks() - this.startBusy;
    let own = 0;
    for (const [pid, ticks] of this.lastOwn) own += ticks - (this.startOwn.get(pid) ?? 0);
    return {
      others: capacity > 0 ? Math.max(0, busy - own) / capacity : 0,
      own: capacity > 0 ? Math.min(1, own / capacity) : 0,
      loadAverage: os.loadavg()[0] ?? 0,
      seconds,
    };
  }
}

export function describeNoise(noise: Noise): string {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return (
    `${Math.round(noise.seconds)} s; CPU of the ${os.cpus().length} cores: the bench ${pct(noise.own)}, ` +
    `other processes ${pct(noise.others)} (1-min load average ${noise.loadAverage.toFixed(1)} at the end)`
  );
}

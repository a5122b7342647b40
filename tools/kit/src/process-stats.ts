// What /proc says about a process (a server under test) and the machine: CPU time and memory. Linux only; NaN
// elsewhere.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, ms */
  cpu: number;
  /** cutime + cstime (reaped children), ms */
  childCpu: number;
}

function readStat(pid: number | string): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  const tick = (i: number) => (Number(rest[i]) * 1000) / CLOCK_TICKS;
  return {
    pid: Number(pid),
    comm: text.slice(open + 1, close),
    ppid: Number(rest[1]),
    cpu: tick(11) + tick(12),
    childCpu: tick(13) + tick(14),
  };
}

/** The pid and every descendant of it (e.g. a collector's workers, and the embedded server it started). */
export function processTree(rootPid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat) parents.set(stat.pid, stat.ppid);
  }
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

/** CPU time (ms) a process has used so far. */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpu ?? Number.NaN;
}

/**
 * CPU time (ms) of the local PostgreSQL server: the postmaster, its live children, and the children it has reaped.
 * NaN when PostgreSQL is not visible in /proc (another host or container).
 */
export function postgresCpuMs(): number {
  const stats: Stat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.comm === 'postgres') stats.push(stat);
  }
  const pids = new Set(stats.map((stat) => stat.pid));
  const postmasters = stats.filter((stat) => !pids.has(stat.ppid));
  if (postmasters.length === 0) return Number.NaN;
  return stats.reduce((sum, stat) => sum + stat.cpu + (pids.has(stat.ppid) ? 0 : stat.childCpu), 0);
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** Samples a process's memory every `everyMs` until stopped; returns the highest RSS seen and the kernel's own peak. */
export function watchMemory(pid: number, everyMs = 200) {
  let maxRss = 0;
  let peak = 0;
  const sample = () => {
    const { rss, peak: hwm } = memoryMiB(pid);
    if (rss > maxRss) maxRss = rss;
    if (hwm > peak) peak = hwm;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    sample,
    result: () => ({ maxRss, peak }),
    stop: () => {
      sample();
      clearInterval(timer);
      return { maxRss, peak };
    },
  };
}

/** CPU time (ms) the whole machine has spent busy (all CPUs, not idle nor waiting on I/O), from /proc/stat. */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
    return (
      (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / CLOCK_TICKS
    );
  } catch {
    return Number.NaN;
  }
}

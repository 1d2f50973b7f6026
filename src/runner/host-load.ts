/**
 * How busy the host was during a load, apart from the load itself: the CPU time the whole machine spent
 * (/proc/stat) minus what this load's browser (its process tree) and this Node.js process spent, over the load's
 * wall time, in CPU cores. A CPU hog, another test's browser or a backup job shows up here; the load itself does
 * not. Linux only: elsewhere (no /proc) nothing is measured and the host-quality
 * check relies on the benchmark index alone.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Linux reports CPU times in clock ticks of USER_HZ, which is 100 on every architecture Node.js runs on. */
const TICKS_PER_SECOND = 100;

export interface CpuSample {
  /** performance.now() when taken. */
  at: number;
  /** Busy ticks of the whole host (all CPUs, everything but idle and iowait; steal included: another VM's). */
  hostTicks: number;
  /** Ticks of the browser's process tree plus this process, in the same unit. */
  ownTicks: number;
}

/** Busy ticks of all CPUs together from the first line of /proc/stat. */
function hostBusyTicks(stat: string): number {
  const line = stat.slice(0, stat.indexOf('\n'));
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user)
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return [user, nice, system, irq, softirq, steal].reduce<number>((s, v) => s + (Number.isFinite(v) ? v! : 0), 0);
}

interface ProcTimes {
  ppid: number;
  /** utime + stime + cutime + cstime: the process and its children that ended and were waited for. */
  ticks: number;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function parseProcStat(text: string): ProcTimes | undefined {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): ppid is field 4, utime..cstime fields 14-17.
  const ppid = Number(rest[1]);
  const ticks = [11, 12, 13, 14].reduce((s, i) => s + Number(rest[i]), 0);
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined;
}

/** CPU ticks of a process and all its descendants (0 when it is gone). */
async function treeTicks(rootPid: number): Promise<number> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n));
  const procs = new Map<number, ProcTimes>();
  await Promise.all(pids.map(async (pid) => {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    const times = text === undefined ? undefined : parseProcStat(text);
    if (times) procs.set(Number(pid), times);
  }));
  const children = new Map<number, number[]>();
  for (const [pid, p] of procs) {
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(pid);
    else children.set(p.ppid, [pid]);
  }
  let ticks = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    ticks += procs.get(pid)?.ticks ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/** A sample now, or undefined where /proc is not there. */
export async function sampleCpu(browserPid: number | undefined): Promise<CpuSample | undefined> {
  try {
    const [stat, browser] = await Promise.all([readFile('/proc/stat', 'utf8'), browserPid ? treeTicks(browserPid) : 0]);
    const self = process.cpuUsage();
    return {
      at: performance.now(),
      hostTicks: hostBusyTicks(stat),
      ownTicks: browser + ((self.user + self.system) / 1e6) * TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

/** CPU cores other processes of the host used on average between two samples (never below 0). */
export function otherCpuCores(start: CpuSample, end: CpuSample): number | undefined {
  const seconds = (end.at - start.at) / 1000;
  if (seconds <= 0) return undefined;
  const others = (end.hostTicks - start.hostTicks) - (end.ownTicks - start.ownTicks);
  return Math.max(0, Math.round((others / TICKS_PER_SECOND / seconds) * 100) / 100);
}

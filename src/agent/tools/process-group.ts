/**
 * Signalling a process group and waiting until none of its processes runs any more.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Sends `signal` to every process of group `pgid`; a group already gone is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left to signal
  }
}

/**
 * Whether a process of the group still runs. A zombie does not count: a killed orphan whose
 * reaper (PID 1 in some containers) never reaps it stays listed, yet runs nothing; on Linux the
 * members' states are read from /proc to tell.
 */
export function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  return livingMembers(pgid).length > 0;
}

/** Linux: the group's members that are not zombies. */
export function livingMembers(pgid: number): number[] {
  const living: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state, ppid, pgrp, ...
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") living.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return living;
}

/** Resolves once no process of the group runs, or after `limitMs` (a process stuck in the kernel). */
export async function waitGroupGone(pgid: number, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (groupRuns(pgid) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

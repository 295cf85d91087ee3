import { readdirSync, readFileSync } from "node:fs";

/**
 * The zombies among the descendants of `root` (Linux: /proc/<pid>/stat, state Z), by pid. A
 * zombie is a child that exited and that its parent never waited for.
 */
export function zombiesUnder(root: number): number[] {
  const parentOf = new Map<number, number>();
  const zombies: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses: read past the last `)`.
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    parentOf.set(Number(name), Number(ppid));
    if (state === "Z") zombies.push(Number(name));
  }
  const under = (pid: number): boolean => {
    for (let at = parentOf.get(pid); at !== undefined && at > 1; at = parentOf.get(at))
      if (at === root) return true;
    return false;
  };
  return zombies.filter(under);
}

/** Waits until `root` has no zombie descendant; returns those still there after `ms`. */
export async function zombiesAfter(root: number, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = zombiesUnder(root);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

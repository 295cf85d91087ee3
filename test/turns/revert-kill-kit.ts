/**
 * What the kill -9 revert tests share: a workspace of 300 files (some of several MiB), the
 * turn's shell that messes it up, a poll of the workspace for the revert's temp files, and a
 * trigger that freezes the child at a moment a temp file of its revert exists.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The revert's temp files (`.mc-revert.<tag>.<hex>.tmp`, docs/checkpoints.md). */
export const TEMP = /\.mc-revert\.[0-9a-f]+\.[0-9a-f]+\.tmp$/;

export function seed(ws: string): void {
  for (let d = 0; d < 6; d++) {
    mkdirSync(join(ws, `d${d}`), { recursive: true });
    for (let f = 0; f < 49; f++)
      writeFileSync(join(ws, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`.repeat(20));
  }
  mkdirSync(join(ws, "big"));
  const line = `${"b".repeat(99)}\n`;
  for (let b = 0; b < 4; b++)
    writeFileSync(join(ws, "big", `b${b}.bin`), `${b}${line.repeat(20_000)}`, { mode: 0o755 });
}

/** Changes every file, removes 10, makes 40 (the turn's shell). */
export const MESS = [
  "for f in d*/f*.txt big/*.bin; do echo changed >> $f; done",
  "rm d0/f1*.txt",
  "mkdir -p extra/deep",
  "for i in $(seq 1 40); do echo new > extra/deep/n$i.txt; done",
  "chmod -x big/b0.bin",
].join(" && ");

/** Every entry under `root` by relative path (empty when it vanished mid-walk or is not there). */
export function namesUnder(root: string): string[] {
  try {
    return readdirSync(root, { recursive: true }).map(String);
  } catch {
    return [];
  }
}

/**
 * Resolves on the first entry under `root` (relative paths, polled every few ms) that `match`
 * accepts. Polled, not watched: Node 20's recursive watch throws when a watched folder vanishes,
 * which a revert does on purpose.
 */
export function seen(root: string, match: (name: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      // A folder vanished mid-walk (or none yet): no names, look again.
      if (namesUnder(root).some(match)) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
}

/**
 * Resolves once process `pid` is stopped (SIGSTOP) while a temp file of its revert exists in
 * `ws`: a temp seen by the poll may be renamed before the stop lands, so the child is let go
 * again (SIGCONT) until one is still there once it is frozen. Resolves with that temp's path;
 * null when `done` settles first (the revert finished before any temp could be caught).
 */
export function frozenWithTemp(
  pid: number,
  ws: string,
  done: Promise<unknown>,
): Promise<string | null> {
  return new Promise((resolve) => {
    let over = false;
    void done.then(
      () => {
        over = true;
      },
      () => {
        over = true;
      },
    );
    const timer = setInterval(() => {
      if (over) {
        clearInterval(timer);
        return resolve(null);
      }
      const temps = namesUnder(ws).filter((name) => TEMP.test(name));
      if (temps.length === 0) return;
      process.kill(pid, "SIGSTOP");
      const kept = temps.find((name) => existsSync(join(ws, name)));
      if (kept) {
        clearInterval(timer);
        return resolve(kept);
      }
      process.kill(pid, "SIGCONT");
    }, 2);
  });
}

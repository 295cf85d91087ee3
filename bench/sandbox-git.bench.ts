/**
 * The cost of finding every `.git` before a sandboxed command (src/agent/sandbox/git-dirs.ts,
 * docs/tools.md "Nested repositories"): a workspace of 20,000 folders (10 files each, 20 nested
 * repositories), walked by a new finder (every folder read) and by one that remembers the last
 * walk (each folder only looked at), against a C walk of the same tree (`find -prune`) and the
 * sandbox's own start (`bwrap` running `true`) measured in the same run.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { bwrapArgs } from "../src/agent/sandbox/bwrap.js";
import { GitDirFinder } from "../src/agent/sandbox/git-dirs.js";
import { sandboxPolicy } from "../src/agent/sandbox/policy.js";
import { findOnPath } from "../src/agent/tools/find-on-path.js";
import { type Bench, median } from "./report.js";

const run = promisify(execFile);
const FOLDERS = 20_000;
const FILES_PER_FOLDER = 10;
const REPOSITORIES = 20;
const ROUNDS = 7;

/** A tree of FOLDERS folders, eight to a folder, breadth first; every 1,000th holds a `.git`. */
function workspace(root: string): string {
  const ws = join(root, "ws");
  mkdirSync(ws);
  const queue = [ws];
  let made = 0;
  while (made < FOLDERS) {
    const parent = queue.shift() as string;
    for (let i = 0; i < 8 && made < FOLDERS; i++) {
      const folder = join(parent, `d${i}`);
      mkdirSync(folder);
      for (let f = 0; f < FILES_PER_FOLDER; f++) writeFileSync(join(folder, `f${f}.txt`), "");
      if (made % (FOLDERS / REPOSITORIES) === 0)
        mkdirSync(join(folder, ".git", "hooks"), { recursive: true });
      queue.push(folder);
      made += 1;
    }
  }
  return ws;
}

/** /dev/shm when it is a memory file system: a disk folder of this size takes minutes to remove here. */
function parent(): string {
  try {
    const mounts = readFileSync("/proc/self/mounts", "utf8");
    if (/^\S+ \/dev\/shm tmpfs /m.test(mounts)) return "/dev/shm";
  } catch {
    // not Linux
  }
  return tmpdir();
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const bench: Bench = {
  title: "Nested .git walk (20,000-folder workspace)",
  about:
    "Before each sandboxed command the child walks the workspace for every `.git` (git-dirs.ts). The tree: 20,000 folders of 10 empty files, 20 of them holding a `.git`, in memory (/dev/shm where it is one: the kernel's caches hold a tree walked before every command anyway). First: a new finder, every folder read (`readdir`), against `find <ws> -name .git -prune -o -type d -print` of the same tree. Remembered: the median of later walks by the same finder, 2 s after the tree was made (a folder changed within 2 s is read again), each folder only looked at (`lstat`), against the sandbox's own start: `bwrap` with the same policy running `true`. Linux only (no rows elsewhere).",
  async run() {
    const bwrap = process.platform === "linux" ? findOnPath("bwrap", process.env) : null;
    if (bwrap === null) return [];
    const root = mkdtempSync(join(parent(), "mc-bench-git-"));
    try {
      const ws = workspace(root);
      const home = join(root, "home");
      mkdirSync(home);
      // Past the file system's clock's reach: the first walk's readings are remembered.
      await sleep(2_100);
      const finder = new GitDirFinder(ws);
      let found: string[] = [];
      const first = await timed(async () => {
        found = await finder.find();
      });
      if (found.length !== REPOSITORIES) throw new Error(`found ${found.length} .git`);
      const find = await timed(() =>
        run("find", [ws, "-name", ".git", "-prune", "-o", "-type", "d", "-print"], {
          maxBuffer: 64 * 1024 * 1024,
        }),
      );
      const policy = sandboxPolicy({ workspace: ws, home, env: { HOME: home }, network: false });
      const args = bwrapArgs({ ...policy, readOnly: found }, ["/bin/true"]);
      const remembered: number[] = [];
      const starts: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        remembered.push(await timed(() => finder.find()));
        starts.push(await timed(async () => execFileSync(bwrap, args, { cwd: ws })));
      }
      return [
        {
          name: `walk, first (every folder read; ${FOLDERS} folders)`,
          figure: first,
          baseline: find,
          unit: "ms",
          baselineName: "find -prune of the same tree",
          note: "lower is better",
        },
        {
          name: `walk, remembered (median of ${ROUNDS})`,
          figure: median(remembered),
          baseline: median(starts),
          unit: "ms",
          baselineName: `bwrap start, ${REPOSITORIES} .git bound read-only`,
          note: "lower is better",
        },
      ];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;

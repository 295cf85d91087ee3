/**
 * The cost of a checkpoint (docs/checkpoints.md): a 10,000-file workspace (100 folders of 100
 * small files), recorded cold (a new shadow repository: every file hashed) and warm (the shadow
 * index's stat cache, after one file changed), against `git add -A` of the same tree in a
 * plain repository measured in the same run. Target: under 300 ms warm.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ShadowRepo } from "../src/agent/checkpoints/shadow-repo.js";
import { type Bench, median } from "./report.js";

const run = promisify(execFile);
const FILES = 10_000;
const ROUNDS = 7;

function workspace(root: string): string {
  const ws = join(root, "ws");
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(ws, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(join(ws, `d${d}`, `f${f}.ts`), `export const v${d}_${f} = ${d * f};\n`);
  }
  return ws;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const bench: Bench = {
  title: "Checkpoints (10,000-file workspace)",
  about:
    "A checkpoint (`ShadowRepo.record`: one `ls-files -m -o` scan and a stat of the files it lists for the 8 MiB bound, `git add -A` into the shadow index, write-tree, commit-tree, update-ref) against `git add -A` of the same tree in a plain repository whose index is as warm, measured in the same run. Cold is the first checkpoint of a new shadow repository; warm is the median of later ones, each after one file changed. Target: under 300 ms warm.",
  async run() {
    const root = mkdtempSync(join(tmpdir(), "mc-bench-ckpt-"));
    try {
      const ws = workspace(root);
      // A long git bound: a cold checkpoint of 10,000 files on a busy machine can pass 60 s.
      const repo = new ShadowRepo({
        home: join(root, "home"),
        workspace: ws,
        env: process.env,
        timeoutMs: 600_000,
      });
      let n = 0;
      const id = () => `c-${(++n).toString(16).padStart(32, "0")}`;
      const cold = await timed(() => repo.record(id()));
      const plain = join(root, "plain");
      const env = {
        ...process.env,
        GIT_DIR: plain,
        GIT_WORK_TREE: ws,
        GIT_INDEX_FILE: join(plain, "index"),
      };
      await run("git", ["init", "-q", "--bare", plain]);
      const plainAdd = () => run("git", ["-c", "core.bare=false", "add", "-A"], { env, cwd: ws });
      const coldBase = await timed(plainAdd);
      const warm: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        writeFileSync(join(ws, "d0", "f0.ts"), `export const changed = ${i};\n`);
        warm.push(await timed(() => repo.record(id())));
        base.push(await timed(plainAdd));
      }
      return [
        {
          name: "checkpoint, cold (first of a new shadow repository)",
          figure: cold,
          baseline: coldBase,
          unit: "ms",
          baselineName: "git add -A, cold index",
          note: "lower is better",
        },
        {
          name: `checkpoint, warm (median of ${ROUNDS}; target < 300 ms)`,
          figure: median(warm),
          baseline: median(base),
          unit: "ms",
          baselineName: "git add -A, warm index",
          note: "lower is better",
        },
      ];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;

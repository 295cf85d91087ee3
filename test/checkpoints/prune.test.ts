/**
 * Pruning of old checkpoints (docs/checkpoints.md, "Pruning"): the policy at its bounds and one
 * past, then a pruning of a real shadow repository (refs gone, objects collected, the journal's
 * checkpoint kept, the daily stamp).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type CheckpointRef,
  claimPruning,
  pruneClaimed,
  toPrune,
} from "../../src/agent/checkpoints/prune.js";
import { ShadowRepo } from "../../src/agent/checkpoints/shadow-repo.js";

/** One pruning, as the turn's end runs it (handlers/checkpoints.ts): claim, then prune. */
async function pruneCheckpoints(
  repo: ShadowRepo,
  policy: Parameters<typeof pruneClaimed>[1],
  signal: AbortSignal,
  now: number,
): Promise<{ ran: boolean; pruned: number }> {
  if (!(await claimPruning(repo, policy, now))) return { ran: false, pruned: 0 };
  return { ran: true, pruned: await pruneClaimed(repo, policy, signal, now) };
}

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 11, 2);
const POLICY = { maxAgeMs: 30 * DAY, keepNewest: 2, maxRefs: 4 };

/** Checkpoints `c-<n>`, the n-th `ageDays[n]` days old. */
function refs(...ageDays: number[]): CheckpointRef[] {
  return ageDays.map((age, n) => ({ id: `c-${n}`, time: NOW - age * DAY }));
}

test("the policy: keepNewest and maxRefs at their bound and one past, the age bound, the journal", () => {
  // Four young ones: at maxRefs, nothing goes; a fifth: the oldest goes.
  assert.deepEqual(toPrune(refs(1, 2, 3, 4), new Set(), POLICY, NOW), []);
  assert.deepEqual(toPrune(refs(1, 2, 3, 4, 5), new Set(), POLICY, NOW), ["c-4"]);
  // Past the keepNewest two: exactly 30 days old stays, one ms older goes.
  const aged: CheckpointRef[] = [
    ...refs(1, 2),
    { id: "c-c", time: NOW - 30 * DAY },
    { id: "c-d", time: NOW - 30 * DAY - 1 },
  ];
  assert.deepEqual(toPrune(aged, new Set(), POLICY, NOW), ["c-d"]);
  // The keepNewest newest stay whatever their age; one past them goes.
  assert.deepEqual(toPrune(refs(40, 50), new Set(), POLICY, NOW), [], "two: both kept");
  assert.deepEqual(toPrune(refs(40, 50, 60), new Set(), POLICY, NOW), ["c-2"]);
  // A revert journal's checkpoint is never pruned (and counts in the ranking).
  assert.deepEqual(toPrune(refs(1, 2, 3, 4, 5), new Set(["c-4"]), POLICY, NOW), []);
  assert.deepEqual(toPrune(refs(1, 2, 40, 50), new Set(["c-3"]), POLICY, NOW), ["c-2"]);
});

test("a pruning deletes the refs, collects their objects, keeps a journal's, and runs daily", async () => {
  const base = mkdtempSync(join(tmpdir(), "mc-prune-"));
  try {
    const home = join(base, "home");
    const ws = join(base, "ws");
    mkdirSync(ws);
    const repo = new ShadowRepo({ home, workspace: ws, env: process.env });
    const git = (args: string[], env: Record<string, string> = {}, input?: string) =>
      execFileSync("git", args, {
        env: { PATH: process.env.PATH, GIT_DIR: repo.dir, ...env },
        ...(input === undefined ? {} : { input }),
      })
        .toString()
        .trim();
    // Three old checkpoints, each of its own content (a blob only it reaches), and a new one.
    const blobs: string[] = [];
    for (const n of [1, 2, 3]) {
      writeFileSync(join(ws, "a.txt"), `version ${n}\n`);
      const cp = await repo.record(`c-0000000000000000000000000000000${n}`);
      blobs.push(git(["rev-parse", `${cp.tree}:a.txt`]));
      const when = `@${Math.floor((NOW - (40 + n) * DAY) / 1000)} +0000`;
      const message = `mc-agent checkpoint\n\n${JSON.stringify(cp.meta)}\n`;
      const old = git(
        ["commit-tree", cp.tree, "-F", "-"],
        {
          GIT_COMMITTER_DATE: when,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
        message,
      );
      git(["update-ref", `refs/mc/checkpoints/c-0000000000000000000000000000000${n}`, old]);
    }
    writeFileSync(join(ws, "a.txt"), "now\n");
    await repo.record("c-00000000000000000000000000000009");
    mkdirSync(join(repo.dir, "reverts"));
    writeFileSync(
      join(repo.dir, "reverts", "s1.json"),
      JSON.stringify({ turn_id: "t-1", checkpoint: "c-00000000000000000000000000000003" }),
    );
    // The index still holds the newest content only: the old blobs are reached by refs alone.
    const policy = { ...POLICY, keepNewest: 1, everyMs: DAY, gcGrace: "now" };
    const signal = new AbortController().signal;
    const outcome = await pruneCheckpoints(repo, policy, signal, NOW);
    assert.deepEqual(outcome, { ran: true, pruned: 2 });
    const left = git(["for-each-ref", "--format=%(refname:lstrip=3)", "refs/mc/checkpoints/"]);
    assert.deepEqual(left.split("\n").sort(), [
      "c-00000000000000000000000000000003",
      "c-00000000000000000000000000000009",
    ]);
    assert.equal(await repo.resolve("c-00000000000000000000000000000001"), null);
    assert.ok(await repo.resolve("c-00000000000000000000000000000003"), "the journal's is kept");
    const present = (object: string) => {
      try {
        git(["cat-file", "-e", object]);
        return true;
      } catch {
        return false;
      }
    };
    assert.deepEqual(blobs.map(present), [false, false, true], "gc collected the pruned ones");
    // Within a day of the stamp no pruning runs; a day later it does.
    assert.deepEqual(await pruneCheckpoints(repo, policy, signal, NOW + DAY - 1), {
      ran: false,
      pruned: 0,
    });
    assert.deepEqual(await pruneCheckpoints(repo, policy, signal, NOW + DAY), {
      ran: true,
      pruned: 0,
    });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

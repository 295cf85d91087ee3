/**
 * The child prunes old checkpoints by itself, after a turn (docs/checkpoints.md, "Pruning"): a
 * workspace whose shadow repository holds 60 checkpoints 40 days old runs one turn; the turn
 * completes as usual, and the child then deletes every old ref past the 50 newest, in the
 * background.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { PRUNE_POLICY } from "../../src/agent/checkpoints/prune.js";
import { ShadowRepo } from "../../src/agent/checkpoints/shadow-repo.js";
import { text } from "../fixtures/chat-completions-server.js";
import { bodiesOf, runApproving } from "./tool-turns.js";
import { TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const OLD = 60;
const DAY_S = 24 * 60 * 60;

test("after a turn the child prunes checkpoints past the 50 newest that are over 30 days old", async () => {
  world = await turnWorld({ capabilities: [...TURN_CAPS, "turn.revert"] });
  const w = world;
  const ws = w.box.workspace;
  writeFileSync(join(ws, "a.txt"), "a\n");
  const repo = new ShadowRepo({ home: w.box.home, workspace: realpathSync(ws), env: process.env });
  const seeded = await repo.record("c-ffffffffffffffffffffffffffffffff");
  const git = (args: string[], input?: string, env: Record<string, string> = {}) =>
    execFileSync("git", args, {
      env: { PATH: process.env.PATH, GIT_DIR: repo.dir, ...env },
      ...(input === undefined ? {} : { input }),
    })
      .toString()
      .trim();
  const old = git(
    ["commit-tree", seeded.tree, "-F", "-"],
    `mc-agent checkpoint\n\n${JSON.stringify(seeded.meta)}\n`,
    {
      GIT_COMMITTER_DATE: `@${Math.floor(Date.now() / 1000) - 40 * DAY_S} +0000`,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  );
  const ids = Array.from({ length: OLD }, (_, n) => `c-${n.toString(16).padStart(32, "0")}`);
  git(
    ["update-ref", "--stdin"],
    ids.map((id) => `update refs/mc/checkpoints/${id} ${old}\n`).join(""),
  );
  git(["update-ref", "-d", "refs/mc/checkpoints/c-ffffffffffffffffffffffffffffffff"]);
  const count = () =>
    git(["for-each-ref", "refs/mc/checkpoints/"]).split("\n").filter(Boolean).length;
  assert.equal(count(), OLD);

  const { session } = await w.child.call("session.create", {});
  w.server.reply(text("Hello."));
  const run = await runApproving(w.child, "hi", "full_access", []);
  assert.equal(run.result.status, "completed");
  assert.deepEqual(bodiesOf(run.events, "checkpoint_failed"), []);
  // The turn's two checkpoints are the newest: 50 kept in all, the 12 oldest of the old go.
  const until = Date.now() + 60_000;
  while (count() !== PRUNE_POLICY.keepNewest) {
    assert.ok(Date.now() < until, `still ${count()} refs`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The turn's own checkpoints are among those kept: its revert still finds its checkpoint.
  const dry = await w.child.call("turn.revert", {
    session_id: session.id,
    turn_id: run.result.turn_id,
    dry_run: true,
  });
  assert.equal((dry as { state: string }).state, "dry_run");
});

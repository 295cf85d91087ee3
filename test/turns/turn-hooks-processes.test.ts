/**
 * Running hooks (docs/hooks.md, "Running"): a hook that hangs is killed at its timeout, and one
 * that forks a grandchild leaves nothing behind when the turn is interrupted, at shutdown, at
 * EOF, and when the child is killed with kill -9 (the watchdog in its group ends it).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { text } from "../fixtures/chat-completions-server.js";
import { alive } from "./lifecycle-fixtures.js";
import { bodiesOf } from "./tool-turns.js";
import { waitUntil } from "./turn-control-fixtures.js";
import { finishTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A UserPromptSubmit hook that forks a grandchild, writes both pids, and hangs. */
const FORKING = "sleep 120 & echo $! > bg.pid; echo $$ > hook.pid; sleep 120";

async function hanging(timeout?: number) {
  world = await turnWorld({
    capabilities: [...TURN_CAPS, "hooks"],
    config: {
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: FORKING, ...(timeout ? { timeout } : {}) }] },
        ],
      },
    },
  });
  const { child, box } = world;
  await child.call("session.create", {});
  const turn = startTurn(child, "go", "full_access");
  const pidFile = join(box.workspace, "hook.pid");
  await waitUntil(
    () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
    "the hook to start",
  );
  const pgid = Number(readFileSync(pidFile, "utf8"));
  const background = Number(readFileSync(join(box.workspace, "bg.pid"), "utf8"));
  assert.ok(groupRuns(pgid) && alive(background), "the hook and its grandchild run");
  return { turn, pgid, background };
}

async function assertGone(pgid: number, background: number) {
  await waitUntil(() => !groupRuns(pgid), "the hook's group to be gone");
  assert.equal(alive(background), false, "the grandchild is gone too");
}

describe("hooks: processes", () => {
  test("a hook that hangs is killed at its timeout; the turn goes on", async () => {
    const { turn, pgid, background } = await hanging(1);
    assert.ok(world);
    world.server.reply(text("Hi."));
    const { result, events } = await finishTurn(world.child, turn);
    assert.equal(result.status, "completed");
    assert.equal(bodiesOf(events, "hook_done")[0]?.status, "timed_out");
    await assertGone(pgid, background);
  });

  test("interrupt kills the hook's group, grandchild included", async () => {
    const { turn, pgid, background } = await hanging();
    const child = world?.child;
    assert.ok(child);
    await child.call("turn.interrupt", { request_id: turn.id });
    await turn.response;
    await assertGone(pgid, background);
  });

  test("shutdown kills the hook's group", async () => {
    const { pgid, background } = await hanging();
    await world?.child.close();
    await assertGone(pgid, background);
  });

  test("EOF kills the hook's group", async () => {
    const { pgid, background } = await hanging();
    world?.child.closeStdin();
    await world?.child.exited;
    await assertGone(pgid, background);
  });

  test("kill -9 of the child: the watchdog ends the hook's group", async () => {
    const { pgid, background } = await hanging();
    world?.child.kill("SIGKILL");
    await world?.child.exited;
    await assertGone(pgid, background);
  });
});

/**
 * Issue 35, item 12: SIGTERM, SIGINT and SIGHUP to `mc-agent stdio` while a shell command runs
 * are a shutdown without an answer, as EOF is: the turn is interrupted and saved (its
 * `turn_end`), the command's whole process group is killed, the lock is removed, and the child
 * exits 0 within `cleanup_ms` (docs/turns.md section 7). Before, Node's default killed the child
 * at once and left `sleep 120`, the lock and a history without its end behind.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { toolCall } from "../fixtures/chat-completions-server.js";
import {
  alive,
  assertWithinCleanup,
  sessionTakenOver,
  shapes,
  timed,
} from "./lifecycle-fixtures.js";
import { lockPath, recordsOf, waitUntil } from "./turn-control-fixtures.js";
import { startTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  describe(`turns: ${signal} to the child`, () => {
    test("interrupts the turn, kills the command's group, saves turn_end, removes the lock, exits 0", async () => {
      world = await turnWorld();
      const { child, box, server } = world;
      const { session } = await child.call("session.create", {});
      const ws = box.workspace;
      // The shell leads the command's group; its pid is the group's id.
      server.reply(toolCall("shell", { command: "echo $$ > sh.pid; sleep 120" }));
      startTurn(child, "run it", "full_access");
      // The redirection creates the file before echo writes it: wait for the whole line.
      const pidFile = join(ws, "sh.pid");
      await waitUntil(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
        "the command to start",
      );
      const pgid = Number(readFileSync(join(ws, "sh.pid"), "utf8"));
      assert.ok(pgid > 0 && groupRuns(pgid), "the command runs");
      assert.ok(existsSync(lockPath(box, session.id)), "the turn holds its lock");
      const pid = child.pid as number;
      child.kill(signal);
      const { value: exit, ms } = await timed(child.exited, "the child to exit");
      assertWithinCleanup(ms, `the exit after ${signal}`);
      assert.deepEqual(exit, { code: 0, signal: null }, child.stderr);
      assert.equal(alive(pid), false);
      assert.equal(groupRuns(pgid), false, "sleep 120 and its shell are gone");
      assert.deepEqual(shapes(recordsOf(box, session.id)).slice(-2), [
        "tool_result:interrupted",
        "turn_end:interrupted",
      ]);
      await sessionTakenOver(world, session.id);
    });
  });
}

describe("turns: kill -9 of the child", () => {
  test("the watchdog ends a running command's whole group, background processes included", async () => {
    world = await turnWorld();
    const { child, box, server } = world;
    await child.call("session.create", {});
    const ws = box.workspace;
    server.reply(
      toolCall("shell", { command: "sleep 120 & echo $! > bg.pid; echo $$ > sh.pid; sleep 120" }),
    );
    startTurn(child, "run it", "full_access");
    const pidFile = join(ws, "sh.pid");
    await waitUntil(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
      "the command to start",
    );
    const pgid = Number(readFileSync(join(ws, "sh.pid"), "utf8"));
    const background = Number(readFileSync(join(ws, "bg.pid"), "utf8"));
    assert.ok(groupRuns(pgid) && alive(background), "the command runs");
    child.kill("SIGKILL");
    await child.exited;
    // Nobody is left to signal the group: the watchdog in it sees its pipe close and kills it.
    await waitUntil(() => !groupRuns(pgid), "the command's group to be gone");
    assert.equal(alive(background), false, "the background sleep is gone too");
  });
});

/**
 * Issue 35, item 12: SIGTERM, SIGINT and SIGHUP to `mc-agent acp` (editors stop agents with
 * SIGTERM: Neovim's `jobstop`) while a shell command runs end it as stdin's EOF does: the prompt
 * is interrupted and saved (`turn_end`), the command's process group is killed, the lock is
 * removed, and the agent exits 0 within `cleanup_ms` (docs/acp.md, "Mapping").
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { groupRuns } from "../../src/agent/tools/process-group.js";
import { toolCall } from "../../src/conformance/chat-server.js";
import { CLEANUP_READING_MS } from "../turns/lifecycle-fixtures.js";
import { AcpWorld } from "./acp-world.js";

describe("mc-agent acp: stop signals", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`${signal} mid-command: the group is killed, the turn saved, the lock gone, exit 0`, async () => {
      world = await AcpWorld.start();
      const w = world;
      await w.initialize();
      const { sessionId } = await w.newSession();
      w.permission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
      w.server.reply(toolCall("shell", { command: "echo $$ > sh.pid; sleep 120" }));
      void w.prompt(sessionId, "run it").catch(() => {});
      const pidFile = join(w.box.workspace, "sh.pid");
      await w.until(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
        "the command",
      );
      const pgid = Number(readFileSync(pidFile, "utf8"));
      assert.ok(groupRuns(pgid), "the command runs");
      const sessions = join(w.box.home, "sessions");
      assert.ok(existsSync(join(sessions, `${sessionId}.lock`)), "the turn holds its lock");
      const started = Date.now();
      w.proc.kill(signal);
      const exit = await w.exited;
      assert.ok(Date.now() - started <= CLEANUP_READING_MS, "within cleanup_ms");
      assert.deepEqual(exit, { code: 0, signal: null }, w.stderr);
      assert.equal(groupRuns(pgid), false, "sleep 120 and its shell are gone");
      assert.equal(existsSync(join(sessions, `${sessionId}.lock`)), false);
      const records = readFileSync(join(sessions, `${sessionId}.jsonl`), "utf8")
        .trim()
        .split("\n");
      const end = JSON.parse(records.at(-1) as string);
      assert.deepEqual([end.type, end.status], ["turn_end", "interrupted"]);
    });
  }
});

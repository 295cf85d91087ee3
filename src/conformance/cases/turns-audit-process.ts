import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../../protocol/constants.js";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import type { ConformanceCase } from "../case.js";
import { call, type SeenRequest, text, toolCall, toolCalls } from "../chat-server.js";
import { delay, within } from "../expect.js";
import { runTurn, startTurn } from "../turn-driver.js";
import { withTurnWorld } from "../turn-world.js";

/**
 * Issue 35's audit, processes and bounds (turns.md §7, tools.md): a stop signal is a shutdown
 * (the command's group killed, the turn saved, the lock released, exit 0), the child's kill -9
 * leaves no command running, the model's output bound counts what the model receives (invalid
 * bytes as U+FFFD), and a file name of 255 bytes can be written.
 */

/** The cleanup bound read with slack for a loaded machine (as turns-audit-lifecycle.ts). */
const CLEANUP_READING_MS = LIMITS.cleanup_ms + 4000;

/** Whether a process of group `pgid` still runs (Linux: zombies do not count). */
function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== "linux") return true;
  return readdirSync("/proc").some((name) => {
    if (!/^\d+$/.test(name)) return false;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return Number(group) === pgid && state !== "Z";
    } catch {
      return false;
    }
  });
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await delay(20);
  }
}

/** The text of the tool message answering `callId` in a model request. */
function toolResult(request: SeenRequest | undefined, callId: string): string {
  const messages = (request?.body?.messages ?? []) as {
    role: string;
    tool_call_id?: string;
    content: string;
  }[];
  const found = messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
  assert.ok(found, `the model was sent the result of ${callId}`);
  return found.content;
}

/** A running `sleep 120` in shell, its group's id read from the workspace. */
async function runningSleep(world: Parameters<Parameters<typeof withTurnWorld>[1]>[0]) {
  const { child, server, ctx } = world;
  const pidFile = join(ctx.box.workspace, "sh.pid");
  rmSync(pidFile, { force: true });
  const { session } = await child.call("session.create", {});
  server.reply(toolCall("shell", { command: "sleep 120 & echo $$ > sh.pid; sleep 120" }));
  startTurn(child, "Run it.", "full_access");
  await until(
    () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
    "the command",
  );
  const pgid = Number(readFileSync(pidFile, "utf8"));
  assert.ok(groupRuns(pgid), "the command runs");
  return { session, pgid };
}

export const TURN_AUDIT_PROCESS_CASES: ConformanceCase[] = [
  {
    id: "turns.signals.stop",
    tier: "MUST",
    clause:
      "turns.md §7 (docs/turns.md, Signals): SIGTERM, SIGINT and SIGHUP are a shutdown without an answer: every turn interrupted and recorded, every command's group killed, every lock released, within cleanup_ms; exit 0 when that cleanup finished in time.",
    title:
      "SIGTERM, SIGINT, SIGHUP during a shell command: the group is gone, turn_end saved, the lock released, exit 0",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
          const { child } = world;
          const { session, pgid } = await runningSleep(world);
          const started = Date.now();
          child.kill(signal);
          const exit = await within(child.exited, 60_000, `the child to exit after ${signal}`);
          const ms = Date.now() - started;
          assert.ok(ms <= CLEANUP_READING_MS, `${signal}: the exit took ${ms} ms`);
          assert.deepEqual(exit, { code: 0, signal: null }, `${signal}: a clean stop exits 0`);
          assert.equal(groupRuns(pgid), false, `${signal}: the command's group is gone`);
          const lines = readFileSync(join(ctx.box.home, "sessions", `${session.id}.jsonl`), "utf8")
            .split("\n")
            .filter((line) => line !== "");
          const end = JSON.parse(lines.at(-1) ?? "{}");
          assert.deepEqual([end.type, end.status], ["turn_end", "interrupted"], signal);
          world.child = await world.respawn();
          const listed = await world.child.call("session.list", {});
          const saved = listed.sessions.find((s) => s.id === session.id);
          assert.equal(saved?.busy, false, `${signal}: no writer lock is left behind`);
        }
      });
    },
  },
  {
    id: "turns.shell.killed_child",
    tier: "SHOULD",
    clause:
      "docs/tools.md, Ending the group: no process of a command outlives the call; when the child is killed (kill -9), nothing of an unsandboxed command's group keeps running.",
    title:
      "kill -9 of the child during a shell command: its group, background processes included, ends",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { pgid } = await runningSleep(world);
        world.child.kill("SIGKILL");
        await within(world.child.exited, 10_000, "the killed child's exit");
        await until(() => !groupRuns(pgid), "the command's group to end");
      });
    },
  },
  {
    id: "turns.tools.output_bound_decoded",
    tier: "MUST",
    clause:
      "turns.md §1 limits: the model sees at most tool_output_bytes of a tool's output, counted as it receives it (a byte that is not UTF-8 becomes U+FFFD, three bytes).",
    title: "100,000 invalid bytes of shell output reach the model within tool_output_bytes",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        const flood = "head -c 100000 /dev/zero | tr '\\0' '\\377'";
        server.reply(toolCalls([call("shell", { command: flood }, "c_ff")]), text("Seen."));
        const { result } = await runTurn(child, "Print bytes.", "full_access");
        assert.equal(result.status, "completed");
        const seen = toolResult(server.requests[1], "c_ff");
        const bytes = Buffer.byteLength(seen);
        const bound = TURN_EXTENSION.tool_output_bytes;
        assert.ok(bytes <= bound, `the model received ${bytes} bytes; the bound is ${bound}`);
        assert.ok(seen.includes("\uFFFD"), "the invalid bytes are shown as U+FFFD");
      });
    },
  },
  {
    id: "turns.tools.long_names",
    tier: "MUST",
    clause:
      "docs/tools.md, Both edit tools: write_file and edit_file write any name a file system takes (255 bytes); their temp file never makes the name too long.",
    title: "write_file and edit_file on a 255-byte file name",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        const name = `${"n".repeat(251)}.txt`;
        server.reply(
          toolCalls([
            call("write_file", { path: name, content: "one\n" }, "c_write"),
            call("edit_file", { path: name, old_text: "one", new_text: "two" }, "c_edit"),
          ]),
          text("Written."),
        );
        const { result } = await runTurn(child, "Write it.", "full_access");
        assert.equal(result.status, "completed");
        assert.equal(readFileSync(join(ctx.box.workspace, name), "utf8"), "two\n");
        const left = readdirSync(ctx.box.workspace).filter((entry) => entry !== name);
        assert.deepEqual(left, [], "no temp file is left");
      });
    },
  },
];

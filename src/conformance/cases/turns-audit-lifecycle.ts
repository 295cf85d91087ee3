import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../../protocol/constants.js";
import type { ConformanceCase } from "../case.js";
import { answerEvents, call, custom, type Script, text, toolCalls } from "../chat-server.js";
import { within } from "../expect.js";
import { nextId } from "../harness.js";
import { bodiesOf, runTurn, startTurn } from "../turn-driver.js";
import { withTurnWorld } from "../turn-world.js";

/**
 * Issue 17's audit, lifecycle (turns.md §6, §7; base §5): nothing a tool or a client does
 * outlives the turn or the child. A FIFO in the workspace is a tool error, never an open that
 * blocks the turn for good; after shutdown, a client that does not read stdout does not keep the
 * child alive past `cleanup_ms`.
 */

/**
 * The cleanup bound read with slack for a loaded machine: the child's timers run late there,
 * and the kit's clock includes pipe latency. The old behaviour never ended at all.
 */
const CLEANUP_READING_MS = LIMITS.cleanup_ms + 4000;

/**
 * A reply that streams text without end, as fast as the child takes it; `blocked` resolves once
 * the child has stopped taking it (a write not drained for half a second: the child's own output
 * is full, and its turn waits for the client to read).
 */
export function endlessReply(): { script: Script; blocked: Promise<void> } {
  let noticed = () => {};
  const blocked = new Promise<void>((resolve) => {
    noticed = resolve;
  });
  const script = custom(async ({ request, res }) => {
    const lines = answerEvents({ text: "x".repeat(8192), pieceChars: 8192 }, request.body?.model);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(lines[0]);
    const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
    while (!res.destroyed) {
      if (res.write(lines[1])) continue;
      const timer = setTimeout(noticed, 500);
      await Promise.race([new Promise((resolve) => res.once("drain", resolve)), closed]);
      clearTimeout(timer);
    }
  });
  return { script, blocked };
}

export const TURN_AUDIT_LIFECYCLE_CASES: ConformanceCase[] = [
  {
    id: "turns.tools.fifo",
    tier: "MUST",
    clause:
      "turns.md §6: tool errors go back to the model as results and never fail the turn; §7: nothing a tool does may hold the turn. A FIFO in the workspace that nobody writes is such an error for read_file and write_file, not an open that blocks.",
    title: "a FIFO in the workspace: read_file and write_file are tool errors, the turn completes",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        const fifo = join(ctx.box.workspace, "pipe");
        execFileSync("mkfifo", [fifo]);
        await child.call("session.create", {});
        server.reply(
          toolCalls([
            call("read_file", { path: "pipe" }, "c_read"),
            call("write_file", { path: "pipe", content: "replaced\n" }, "c_write"),
          ]),
          text("Done."),
        );
        const { result, events } = await within(
          runTurn(child, "Look at the pipe.", "full_access"),
          30_000,
          "the turn with FIFO calls",
        );
        assert.equal(result.status, "completed", "tool errors never fail the turn");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((done) => done.status),
          ["failed", "failed"],
          "both calls are tool errors",
        );
        assert.ok(lstatSync(fifo).isFIFO(), "the FIFO was not replaced");
        assert.equal(server.requests.length, 2, "the model was told and answered");
      });
    },
  },
  {
    id: "turns.shutdown.unread_output",
    tier: "MUST",
    clause:
      "base §5: shutdown waits at most cleanup_ms for in-flight work, answers stopped, exits 0; turns.md §7: shutdown during a turn interrupts and records it. A client that stopped reading stdout does not extend the bound: what it does not take is dropped.",
    title: "shutdown while the client does not read stdout: the child exits 0 within cleanup_ms",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child, server } = world;
        const { session } = await child.call("session.create", {});
        const endless = endlessReply();
        server.reply(endless.script);
        child.pauseOutput();
        startTurn(child, "Say a lot.");
        await within(endless.blocked, 30_000, "the child's output to fill up");
        const started = Date.now();
        child.send({ id: nextId("shutdown"), method: "shutdown", params: {} });
        const exit = await within(child.exited, 60_000, "the child to exit");
        const ms = Date.now() - started;
        assert.ok(
          ms <= CLEANUP_READING_MS,
          `the child took ${ms} ms to exit; the bound is cleanup_ms (${LIMITS.cleanup_ms} ms)`,
        );
        assert.deepEqual(exit, { code: 0, signal: null }, "a clean shutdown exits 0");
        const next = await world.respawn();
        const listed = await next.call("session.list", {});
        const saved = listed.sessions.find((s) => s.id === session.id);
        assert.equal(saved?.busy, false, "no writer lock is left behind");
        // From the file (base §6 layout): the partial reply is too large for a history page.
        const lines = readFileSync(join(ctx.box.home, "sessions", `${session.id}.jsonl`), "utf8")
          .split("\n")
          .filter((line) => line !== "");
        const end = JSON.parse(lines.at(-1) ?? "{}");
        assert.deepEqual(
          [end?.type, end?.status],
          ["turn_end", "interrupted"],
          "the turn was interrupted and recorded, not held by the full output",
        );
      });
    },
  },
];

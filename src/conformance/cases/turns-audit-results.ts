import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import { custom, fail, type Script, stall, text } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import {
  finishTurn,
  historyOf,
  runTurn,
  startTurn,
  type TurnResultShape,
  turnRecords,
} from "../turn-driver.js";
import {
  TURN_CAPABILITIES,
  type TurnWorld,
  turnChildOptions,
  withTurnWorld,
} from "../turn-world.js";

/**
 * What a turn's result says, from the outside audit of issue 17: an interrupt that arrives while
 * the turn writes its end (defect 6), what `steps` counts (defect 7), and event streams whose
 * lines end in CR, LF or CRLF (defect 10).
 */

/** The 8 MiB stream line bound of docs/providers.md. */
const STREAM_LINE_BYTES = 8 * 1_048_576;

/** Resolves once `condition` holds; polled, with a generous bound (a wait for an event). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A turn on a new session whose one model call is answered by `script`. */
async function turnOn(world: TurnWorld, script: Script, input: string) {
  await world.child.call("session.create", {});
  world.server.reply(script);
  return runTurn(world.child, input);
}

function assertSteps(result: TurnResultShape, status: string, code: string | null, steps: number) {
  assert.equal(result.status, status, `the turn ended ${JSON.stringify(result)}`);
  assert.equal(result.error?.code ?? null, code);
  assert.equal(result.steps, steps, `steps after a ${status} turn`);
}

/** A 503 that says to retry at once (`Retry-After: 0`, honoured as sent). */
const unavailable = () => fail(503, { retryAfter: 0 });

/** The kit's answer "Line ends hold." in three pieces, with these line ends and comment. */
function lines(lineEnd: "LF" | "CRLF" | "CR", commentBytes?: number): Script {
  return text(["Line ", "ends ", "hold."], {
    lineEnd,
    ...(commentBytes === undefined
      ? {}
      : { comment: { before: 2, text: "c".repeat(commentBytes - 2) } }),
  });
}

/** A child of the case's command with the end-of-turn hold of a test build. */
function heldChild(ctx: CaseContext): Promise<TestChild> {
  const env = { ...turnChildOptions().env, MC_AGENT_TEST_HOLD_TURN_END: "1" };
  return ctx.ready(TURN_CAPABILITIES, { env });
}

export const TURN_AUDIT_RESULT_CASES: ConformanceCase[] = [
  {
    id: "turns.audit.interrupt_while_ending",
    tier: "MUST",
    needsTestMethods: true,
    clause:
      'turns.md §3: turn.interrupt answers {state: interrupting} for a running turn; "no such running turn: turn_missing". A turn runs until its result is written; the result is whatever is true.',
    title:
      "an interrupt after the turn's last record, before its result: interrupting, then the completed result the history records",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ server }) => {
        // A test build holds the turn after its history is closed until its signal fires
        // (MC_AGENT_TEST_HOLD_TURN_END): the window a few microtasks wide is then certain.
        const child = await heldChild(ctx);
        const { session } = await child.call("session.create", {});
        server.reply(text("All done."));
        const turn = startTurn(child, "Finish quickly.");
        await turn.event("message_done");
        const lock = join(ctx.box.home, "sessions", `${session.id}.lock`);
        await until(() => !existsSync(lock), "the session's lock to be removed");
        const ack = await child.request("turn.interrupt", { request_id: turn.id });
        assert.deepEqual(
          ack.result,
          { state: "interrupting", request_id: turn.id },
          `the turn had not answered yet, but the interrupt got ${JSON.stringify(ack.error)}`,
        );
        const { result } = await finishTurn(child, turn);
        assert.ok(
          child.frames.indexOf(ack) < child.frames.findIndex((f) => f.id === turn.id),
          "the interrupt is answered before the result",
        );
        assert.deepEqual([result.status, result.stop_reason], ["completed", "end_turn"]);
        const end = turnRecords(await historyOf(child, session.id), String(result.turn_id)).at(-1);
        assert.deepEqual([end?.type, end?.status], ["turn_end", "completed"], "they agree");
        const late = await child.request("turn.interrupt", { request_id: turn.id });
        assert.equal(late.error?.code, "turn_missing", "after its result the turn is gone");
      });
    },
  },
  {
    id: "turns.audit.steps_without_reply",
    tier: "MUST",
    clause:
      "turns.md §3: steps counts the model calls that produced a reply; a call that got none (an error status, retries that all failed, an interrupt before any output) is no step.",
    title: "five 503s (four retries), a 401, an interrupt before any byte: steps 0 each",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child, server } = world;
        await child.call("session.create", {});
        for (let i = 0; i < 5; i++) server.reply(unavailable());
        const retried = await runTurn(child, "Fail five times.");
        assertSteps(retried.result, "failed", "remote_unavailable", 0);
        assert.equal(server.requests.length, 5, "four retries");
        const refused = await turnOn(world, fail(401), "Refuse me.");
        assertSteps(refused.result, "failed", "authentication_rejected", 0);
        await child.call("session.create", {});
        const seen = server.requests.length;
        server.reply(custom(() => {}));
        const turn = startTurn(child, "Never answered.");
        await until(() => server.requests.length > seen, "the model call to arrive");
        await child.call("turn.interrupt", { request_id: turn.id });
        assertSteps((await finishTurn(child, turn)).result, "interrupted", null, 0);
      });
    },
  },
  {
    id: "turns.audit.steps_with_reply",
    tier: "MUST",
    clause:
      "turns.md §3: steps counts the model calls that produced a reply: retried attempts before it are not steps; a reply cut by an interrupt is one.",
    title: "two 503s, then an answer: steps 1; an interrupt after part of a reply: steps 1",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(unavailable(), unavailable(), text("Third time."));
        assertSteps((await runTurn(child, "Try again.")).result, "completed", null, 1);
        // The role chunk and three pieces of four characters, then the stream stays open.
        server.reply(stall(text("Some words and more"), 4));
        const turn = startTurn(child, "Half an answer.");
        await turn.event("message_delta");
        await child.call("turn.interrupt", { request_id: turn.id });
        assertSteps((await finishTurn(child, turn)).result, "interrupted", null, 1);
      });
    },
  },
  {
    id: "turns.audit.sse_line_ends",
    tier: "MUST",
    clause:
      "turns.md §5: each wire format is read as the library reads it; the SSE grammar ends a line at CR, LF or CRLF, and a stream's last event ends at its last blank line.",
    title: "an event stream with LF, CRLF or CR-only line ends: the same completed turn",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        for (const lineEnd of ["LF", "CRLF", "CR"] as const) {
          const { result, events } = await turnOn(world, lines(lineEnd), `Lines end ${lineEnd}.`);
          assert.equal(result.status, "completed", `${lineEnd}: ${JSON.stringify(result.error)}`);
          const done = events.filter((e) => e.event.type === "message_done");
          assert.deepEqual(
            done.map((e) => (e.event as { text: string }).text),
            ["Line ends hold."],
            lineEnd,
          );
          assert.ok(result.usage.input_tokens > 0, `${lineEnd}: the usage chunk was read`);
        }
      });
    },
  },
  {
    id: "turns.audit.sse_line_bound_cr",
    tier: "SHOULD",
    clause:
      "docs/providers.md, stream bounds: no line of a streaming answer may exceed 8 MiB, counted between any two line ends (CR, LF, CRLF); past it the answer is invalid_response.",
    title:
      "CR-only stream: a line of exactly 8 MiB passes (the stream is longer), one byte more is invalid_response",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const at = await turnOn(world, lines("CR", STREAM_LINE_BYTES), "At the bound.");
        assert.equal(at.result.status, "completed", JSON.stringify(at.result.error));
        const past = await turnOn(world, lines("CR", STREAM_LINE_BYTES + 1), "Past the bound.");
        assert.equal(past.result.status, "failed");
        assert.equal(past.result.error?.code, "invalid_response");
      });
    },
  },
];

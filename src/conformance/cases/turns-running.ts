import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, held, stall, text, toolCalls } from "../chat-server.js";
import { assertCleanExit, indexOfResponse, within } from "../expect.js";
import { nextId } from "../harness.js";
import { gate } from "../loopback.js";
import {
  bodiesOf,
  finishTurn,
  historyOf,
  runTurn,
  type StartedTurn,
  startTurn,
  turnRecords,
} from "../turn-driver.js";
import { type TurnWorld, withTurnWorld } from "../turn-world.js";

/**
 * What happens while a turn runs (turns.md sections 3 and 7): interrupt while the model streams
 * and while an approval waits, the session worker busy with status and reads answered beside
 * it, operation.cancel that cancels no turn, unknown interrupts, and shutdown mid-turn.
 * A running turn is a model stream the kit's server holds open after its first pieces.
 */
const LONG_REPLY = "This answer is long enough to be cut off by the interrupt, piece by piece.";

/** Starts a turn whose long reply stalls after its first pieces; resolves at its first delta. */
async function streamingTurn({ child, server }: TurnWorld): Promise<StartedTurn> {
  server.reply(stall(text(LONG_REPLY), 4));
  const turn = startTurn(child, "Tell me a long story.");
  await turn.event("message_delta");
  return turn;
}

/**
 * Starts a turn whose reply `reply` is held after its first pieces, runs `during` once its first
 * delta is out, then lets the reply finish (whatever `during` did); resolves with the turn.
 */
async function whileHeld(
  { child, server }: TurnWorld,
  reply: string,
  input: string,
  during: (turn: StartedTurn) => Promise<void>,
): Promise<StartedTurn> {
  const door = gate();
  server.reply(held(text(reply), 3, door.wait));
  const turn = startTurn(child, input);
  try {
    await turn.event("message_delta");
    await during(turn);
  } finally {
    door.open();
  }
  return turn;
}

export const TURN_RUNNING_CASES: ConformanceCase[] = [
  {
    id: "turns.interrupt.streaming",
    tier: "MUST",
    clause:
      "turns.md §3, §7: turn.interrupt answers {state: interrupting, request_id}; it aborts the model stream, records what was produced (partial text marked interrupted, the turn's end), then answers the turn interrupted.",
    title: "interrupt while the model streams: interrupting, result interrupted, partial text kept",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turn = await streamingTurn(world);
        const ack = await child.call("turn.interrupt", { request_id: turn.id });
        assert.deepEqual(ack, { state: "interrupting", request_id: turn.id });
        const { result } = await within(finishTurn(child, turn), 15_000, "the interrupted turn");
        assert.equal(result.status, "interrupted");
        assert.equal(result.stop_reason, "interrupted");
        assert.equal(result.error, null);
        const again = await child.request("turn.interrupt", { request_id: turn.id });
        assert.equal(again.error?.code, "turn_missing", "an ended turn cannot be interrupted");
        const records = turnRecords(await historyOf(child, session.id), String(result.turn_id));
        const partial = records.find((r) => r.type === "assistant_message");
        assert.equal(partial?.interrupted, true, "the partial text is recorded as interrupted");
        assert.ok(LONG_REPLY.startsWith(String(partial?.text)), "the partial text is kept");
        assert.equal(records.at(-1)?.type, "turn_end", "the turn's end is recorded");
        assert.equal(records.at(-1)?.status, "interrupted");
      });
    },
  },
  {
    id: "turns.interrupt.approval_pending",
    tier: "MUST",
    clause:
      "turns.md §7: turn.interrupt resolves pending approvals as cancelled ... then answers the turn interrupted. §3: a no longer pending approval is approval_missing.",
    title: "interrupt while an approval waits: approval_resolved cancelled, nothing written",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(toolCalls([call("write_file", { path: "never.txt", content: "no\n" })]));
        const turn = startTurn(child, "Write never.txt.", "ask");
        const asked = await turn.event("approval_requested");
        const { approval_id } = asked.event as { approval_id: string };
        await child.call("turn.interrupt", { request_id: turn.id });
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "interrupted");
        assert.deepEqual(
          bodiesOf(events, "approval_resolved").map((r) => [r.approval_id, r.decision]),
          [[approval_id, "cancelled"]],
        );
        assert.ok(!existsSync(join(ctx.box.workspace, "never.txt")), "nothing was written");
        const late = await child.request("turn.approve", { approval_id, decision: "allow_once" });
        assert.equal(late.error?.code, "approval_missing");
      });
    },
  },
  {
    id: "turns.interrupt.unknown",
    tier: "MUST",
    clause: "turns.md §3: turn.interrupt ... no such running turn: turn_missing.",
    title: "turn.interrupt naming no running turn: turn_missing",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child }) => {
        const code = await child.errorCode("turn.interrupt", { request_id: "never-sent-1" });
        assert.equal(code, "turn_missing");
        const approve = await child.errorCode("turn.approve", {
          approval_id: "never-asked-1",
          decision: "deny",
        });
        assert.equal(approve, "approval_missing");
      });
    },
  },
  {
    id: "turns.busy.while_running",
    tier: "MUST",
    clause:
      "turns.md §3: while a turn runs, model.select, model.refresh, session.open, session.create and a second turn.start are busy (nothing is queued). Listings and reads run beside it; status stays on the protocol loop.",
    title: "busy while a turn runs; status, listings and the catalog answered beside it",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child, server } = world;
        const { session } = await child.call("session.create", {});
        const turn = await whileHeld(world, "Done at last.", "Take your time.", async (turn) => {
          const catalog = await child.call("model.catalog", {});
          const refused: [string, unknown][] = [
            ["turn.start", { input: "and another" }],
            ["session.create", {}],
            ["session.open", { id: session.id }],
            [
              "model.select",
              { model: "kit/kit-1", effort: null, catalog_revision: catalog.revision },
            ],
          ];
          for (const [method, params] of refused)
            assert.equal(await child.errorCode(method, params), "busy", method);
          const status = await child.call("status", {});
          assert.equal(status.worker, "busy");
          assert.ok(
            status.active_requests.some((a) => a.id === turn.id && a.method === "turn.start"),
            "status lists the running turn",
          );
          const list = await child.call("session.list", {});
          assert.equal(list.sessions.find((s) => s.id === session.id)?.busy, true, "locked");
        });
        const { result } = await finishTurn(child, turn);
        assert.equal(result.status, "completed", "busy refusals do not disturb the turn");
        server.reply(text("Free again."));
        assert.equal((await runTurn(child, "Once more.")).result.status, "completed");
      });
    },
  },
  {
    id: "turns.cancel.operation_missing",
    tier: "MUST",
    clause:
      "turns.md §3: operation.cancel naming a turn.start ID is operation_missing (the seed: it cancels no turn).",
    title: "operation.cancel on a running turn's ID: operation_missing, the turn goes on",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child } = world;
        await child.call("session.create", {});
        const turn = await whileHeld(world, "Still here.", "Keep going.", async (turn) => {
          const code = await child.errorCode("operation.cancel", { request_id: turn.id });
          assert.equal(code, "operation_missing");
        });
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "completed", "the turn was not cancelled");
        assert.deepEqual(
          bodiesOf(events, "message_done").map((d) => d.text),
          ["Still here."],
        );
      });
    },
  },
  {
    id: "turns.shutdown.during_turn",
    tier: "MUST",
    clause:
      'turns.md §7: shutdown during a turn does the same (interrupts it, records it) before {"state":"stopped"}.',
    title: "shutdown while a turn streams: the turn's result first, then stopped, exit 0",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turn = await streamingTurn(world);
        const stopped = await child.request("shutdown", {}, nextId("shutdown"));
        assert.deepEqual(stopped.result, { state: "stopped" });
        const frame = await turn.response;
        assert.equal((frame.result as { status?: string } | undefined)?.status, "interrupted");
        assert.ok(
          indexOfResponse(child, turn.id) < indexOfResponse(child, stopped.id as string),
          "the turn's result comes before stopped",
        );
        await assertCleanExit(child, 15_000);
        const next = await ctx.ready(["session.list"], { env: {} });
        const list = await next.call("session.list", {});
        const saved = list.sessions.find((s) => s.id === session.id);
        assert.ok(saved, "the interrupted turn's session is saved and listed");
        assert.equal(saved.busy, false, "no writer lock is left behind");
      });
    },
  },
  {
    id: "turns.eof.during_turn",
    tier: "MUST",
    clause:
      "turns.md §7: EOF on stdin does it (interrupts and records the turn) with no response; base: EOF does what shutdown does, without the shutdown answer (the turn still gets its result).",
    title: "stdin closed while a turn streams: the turn's interrupted result, no more, exit 0",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const { child } = world;
        const { session } = await child.call("session.create", {});
        const turn = await streamingTurn(world);
        const framesBefore = child.frames.length;
        child.closeStdin();
        const { result } = await finishTurn(child, turn);
        assert.equal(result.status, "interrupted");
        await assertCleanExit(child, 15_000);
        const after = child.frames.slice(framesBefore).filter((f) => "id" in f);
        assert.deepEqual(
          after.map((f) => f.id),
          [turn.id],
          "the turn's result is the only response after EOF",
        );
        const next = await world.respawn();
        const records = await historyOf(next, session.id);
        const end = records.at(-1);
        assert.deepEqual([end?.type, end?.status], ["turn_end", "interrupted"]);
      });
    },
  },
];

import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { call, held, text, toolCalls } from "../chat-server.js";
import { nextId } from "../harness.js";
import { gate } from "../loopback.js";
import { bodiesOf, finishTurn, historyOf, startTurn, turnRecords } from "../turn-driver.js";
import { TURN_CAPABILITIES, withTurnWorld } from "../turn-world.js";

/**
 * Steering and queueing (docs/turns.md §12): `turn.steer` delivered at the next model call
 * boundary or returned undelivered, and `turn.start` with `queue: true`. A child without
 * `turn.steer` / `turn.queue` skips these cases.
 */
const STEER = [...TURN_CAPABILITIES, "turn.steer"];
const QUEUE = [...STEER, "turn.queue"];

export const TURN_STEERING_CASES: ConformanceCase[] = [
  {
    id: "turns.steer.final_answer",
    tier: "MUST",
    clause:
      "turns.md §12: a steer arriving while the model writes its final answer makes one more model call with it in the context; steer_applied; a user_message record with steer: true inside the turn; undelivered_steers is [].",
    title: "a steer during the final answer: one more model call carries it",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          const door = gate();
          server.reply(held(text("First answer."), 3, door.wait), text("Steered answer."));
          const turn = startTurn(child, "Answer me.");
          await turn.event("message_delta");
          const steer = await child.call("turn.steer", { request_id: turn.id, input: "Shorter." });
          assert.equal(steer.state, "accepted");
          door.open();
          const { result, events } = await finishTurn(child, turn);
          assert.equal(result.status, "completed");
          assert.deepEqual((result as { undelivered_steers?: unknown }).undelivered_steers, []);
          assert.deepEqual(
            bodiesOf(events, "steer_applied").map((e) => [e.steer_id, e.text]),
            [[steer.steer_id, "Shorter."]],
          );
          const last = server.requests[1]?.body.messages.at(-1);
          assert.deepEqual([last?.role, last?.content], ["user", "Shorter."]);
          const records = turnRecords(await historyOf(child, session.id), String(result.turn_id));
          const steered = records.filter((r) => r.type === "user_message" && r.steer === true);
          assert.deepEqual(
            steered.map((r) => r.text),
            ["Shorter."],
          );
        },
        { capabilities: STEER },
      );
    },
  },
  {
    id: "turns.steer.undelivered",
    tier: "MUST",
    clause:
      "turns.md §12: a turn that ends before the boundary reports every steer it accepted and never delivered in undelivered_steers, in order; nothing of them is recorded.",
    title: "interrupt with steers pending: both returned undelivered",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(toolCalls([call("write_file", { path: "never.txt", content: "no\n" })]));
          const turn = startTurn(child, "Write never.txt.", "ask");
          await turn.event("approval_requested");
          const one = await child.call("turn.steer", { request_id: turn.id, input: "one" });
          const two = await child.call("turn.steer", { request_id: turn.id, input: "two" });
          await child.call("turn.interrupt", { request_id: turn.id });
          const { result, events } = await finishTurn(child, turn);
          assert.equal(result.status, "interrupted");
          assert.deepEqual((result as { undelivered_steers?: unknown }).undelivered_steers, [
            { steer_id: one.steer_id, input: "one" },
            { steer_id: two.steer_id, input: "two" },
          ]);
          assert.equal(bodiesOf(events, "steer_applied").length, 0);
        },
        { capabilities: STEER },
      );
    },
  },
  {
    id: "turns.queue.order_and_removal",
    tier: "MUST",
    clause:
      "turns.md §12: queue: true waits behind the running turn and starts when it ends; turn.steer naming a waiting request is turn_missing; turn.interrupt of a waiting request answers it interrupted with turn_id null and steps 0.",
    title: "queued turns: one runs after the first, one removed while waiting",
    async run(ctx) {
      await withTurnWorld(
        ctx,
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          const door = gate();
          server.reply(held(text("First."), 3, door.wait), text("Queued."));
          const first = startTurn(child, "first");
          await first.event("message_delta");
          const [kept, removed] = [nextId("q"), nextId("q")];
          const keptAnswer = child.waitFor((f) => f.id === kept, 60_000);
          const removedAnswer = child.waitFor((f) => f.id === removed, 60_000);
          for (const [id, input] of [
            [kept, "second"],
            [removed, "third"],
          ])
            child.send({ id, method: "turn.start", params: { input, queue: true } });
          const steer = await child.request("turn.steer", { request_id: kept, input: "x" });
          assert.equal(steer.error?.code, "turn_missing", "a waiting request is not running");
          await child.call("turn.interrupt", { request_id: removed });
          const gone = (await removedAnswer).result as Record<string, unknown>;
          assert.deepEqual(
            [gone.turn_id, gone.session_id, gone.status, gone.steps],
            [null, session.id, "interrupted", 0],
          );
          door.open();
          assert.equal((await finishTurn(child, first)).result.status, "completed");
          const second = (await keptAnswer).result as Record<string, unknown>;
          assert.equal(second.status, "completed");
          assert.equal(server.requests[1]?.body.messages.at(-1).content, "second");
          assert.equal(server.requests.length, 2, "the removed request never ran");
        },
        { capabilities: QUEUE },
      );
    },
  },
];

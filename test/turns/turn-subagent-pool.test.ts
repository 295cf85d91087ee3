/**
 * docs/turns.md section 13, "Parallel": at most 4 subagents of one reply run at once. A 5th
 * `agent` call waits for a free place: it starts only after one of the 4 running finished (its
 * first event comes after that one's `tool_done`), then runs; all 5 results reach the model
 * paired with their own call IDs.
 */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { call, custom, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { type Loose, resultText } from "./tool-turns.js";
import { waitUntil } from "./turn-control-fixtures.js";
import { finishTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A gate per task: a subagent's model call is answered once its gate opens. */
function gates(n: number) {
  const opens: (() => void)[] = [];
  const waits = Array.from(
    { length: n },
    (_, i) =>
      new Promise<void>((resolve) => {
        opens[i] = resolve;
      }),
  );
  return { waits, open: (i: number) => opens[i]?.() };
}

describe("subagents: the pool of 4", () => {
  test("a 5th agent call waits until one of the 4 running finishes, then runs; all 5 pair", async () => {
    world = await turnWorld({ capabilities: [...TURN_CAPS, "subagents"] });
    const w = world;
    await w.child.call("session.create", {});
    const tasks = [1, 2, 3, 4, 5];
    const { waits, open } = gates(5);
    // The 5th's call is answered at once: only the pool can hold it back.
    open(4);
    const gated = custom(async (exchange) => {
      const users = (exchange.request.body.messages as Loose[]).filter((m) => m.role === "user");
      const prompt = String(users.at(-1)?.content);
      const n = Number(prompt.replace("task ", ""));
      await waits[n - 1];
      await text(`answer to ${prompt}`)(exchange);
    });
    w.server.reply(
      toolCalls(
        tasks.map((n) =>
          call("agent", { description: `Part ${n}`, prompt: `task ${n}` }, `c_${n}`),
        ),
      ),
      ...tasks.map(() => gated),
      text("All five answered."),
    );
    const turn = startTurn(w.child, "Five helpers", "ask");
    await waitUntil(() => w.server.requests.length >= 5, "four subagents calling the model");
    const agentItems = () =>
      turn
        .events()
        .filter((e) => e.event.type === "tool_call")
        .map((e) => e.event as Loose);
    const itemOf = (n: number) => agentItems().find((c) => c.title === `Agent: Part ${n}`)?.item_id;
    // One of the four (not the first) finishes; only then may the 5th start.
    open(1);
    const done = await turn.event("tool_done", (e) => (e.event as Loose).item_id === itemOf(2));
    await waitUntil(() => itemOf(5) !== undefined, "the 5th agent call to start");
    const fifth = itemOf(5) as string;
    // Its first subagent event follows its tool_call: waited for, not looked up at once.
    const fifthFirst = await turn.event(
      "subagent_event",
      (e) => (e.event as Loose).subagent_id === fifth,
    );
    assert.ok(fifthFirst.seq > done.seq, "the 5th subagent started after one of the four finished");
    const started = turn
      .events()
      .filter(
        (e) =>
          e.event.type === "subagent_event" && (e.event as Loose).event.type === "turn_started",
      );
    assert.equal(
      started.filter((e) => e.seq < done.seq).length,
      4,
      "exactly four ran before a place was free",
    );
    for (const i of [0, 2, 3]) open(i);
    const { result } = await finishTurn(w.child, turn);
    assert.equal(result.status, "completed");
    const last = w.server.requests.at(-1);
    for (const n of tasks) assert.equal(resultText(last, `c_${n}`), `answer to task ${n}`);
  });
});

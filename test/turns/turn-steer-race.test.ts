import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { type Frame, nextId } from "../helpers/child.js";
import { recordsOf } from "./turn-control-fixtures.js";
import { finishTurn, startTurn, TURN_CAPS, type TurnWorld, turnWorld } from "./turn-harness.js";
import { steerRecords } from "./turn-steer-fixtures.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** mulberry32: a small seeded generator, so a failing run can be replayed by its seed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RUNS = 40;
const SEED = Number(process.env.MC_STEER_RACE_SEED ?? 39);

describe("turn.steer racing the turn's end", () => {
  test(`seeded (MC_STEER_RACE_SEED=${SEED}), ${RUNS} runs: applied or undelivered, never both, never neither`, async (t) => {
    world = await turnWorld({ capabilities: [...TURN_CAPS, "turn.steer"] });
    const { child, server, box } = world;
    const { session } = await child.call("session.create", {});
    const random = generator(SEED);
    const outcomes = { applied: 0, undelivered: 0, refused: 0 };
    /**
     * Applied steers no model request has carried yet: an interrupt that came after the
     * delivery stopped the turn before the call it joined reached the model, so the session's
     * next turn must carry it in its replay (docs/turns.md, "Exactly once").
     */
    let owed: string[] = [];
    let replayedLater = 0;
    const carried = (input: string) =>
      server.requests.some((r) => JSON.stringify(r.body).includes(`"${input}"`));
    for (let run = 0; run < RUNS; run++) {
      const context = `seed ${SEED}, run ${run}`;
      server.clear();
      server.reply(text(`Answer ${run}.`, { pieceChars: 3 }), text(`Steered ${run}.`));
      const turn = startTurn(child, `question ${run}`);
      // From at once (the same pipe write's neighbour) to well past a short turn's end.
      const delay = Math.floor(random() ** 2 * 60);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const id = nextId("steer");
      const answer = child.waitFor((f: Frame) => f.id === id, 30_000);
      child.send({
        id,
        method: "turn.steer",
        params: { request_id: turn.id, input: `steer ${run}` },
      });
      // Half the runs interrupt right behind the steer: the end then races the boundary too.
      if (random() < 0.5)
        child.send({
          id: nextId("stop"),
          method: "turn.interrupt",
          params: { request_id: turn.id },
        });
      const reply = await answer;
      const { result, events } = await finishTurn(child, turn);
      owed = owed.filter((input) => !carried(input));
      const applied = events.filter((e) => e.event.type === "steer_applied");
      const undelivered = result.undelivered_steers ?? [];
      const recorded = steerRecords(recordsOf(box, session.id)).filter(
        (r) => r.turn_id === result.turn_id,
      );
      if (reply.error) {
        assert.equal(reply.error.code, "turn_missing", context);
        assert.deepEqual([applied.length, undelivered.length, recorded.length], [0, 0, 0], context);
        outcomes.refused += 1;
        continue;
      }
      const steerId = reply.result?.steer_id;
      const wasApplied = applied.some((e) => e.event.steer_id === steerId);
      const wasReturned = undelivered.some(
        (s) => s.steer_id === steerId && s.input === `steer ${run}`,
      );
      assert.notEqual(
        wasApplied,
        wasReturned,
        `${context}: exactly one of applied and undelivered`,
      );
      assert.equal(
        recorded.length,
        wasApplied ? 1 : 0,
        `${context}: recorded exactly when applied`,
      );
      // Applied: a model call saw it (at the first call, or one more after the answer), or the
      // turn was interrupted before that call went out and the next turn's replay owes it.
      // Undelivered: no model request ever carries it.
      const seen = carried(`steer ${run}`);
      if (!wasApplied) assert.equal(seen, false, `${context}: an undelivered steer is never sent`);
      else if (!seen) {
        assert.equal(
          result.status,
          "interrupted",
          `${context}: applied, unsent only if interrupted`,
        );
        owed.push(`steer ${run}`);
        replayedLater += 1;
      }
      outcomes[wasApplied ? "applied" : "undelivered"] += 1;
    }
    if (owed.length > 0) {
      server.clear();
      server.reply(text("Replayed."));
      await finishTurn(child, startTurn(child, "one more"));
      owed = owed.filter((input) => !carried(input));
    }
    assert.deepEqual(owed, [], `seed ${SEED}: every applied steer reached a model request`);
    t.diagnostic(`outcomes: ${JSON.stringify({ ...outcomes, replayedLater })}`);
    assert.equal(outcomes.applied + outcomes.undelivered + outcomes.refused, RUNS);
    assert.ok(outcomes.applied > 0, `some steers were applied: ${JSON.stringify(outcomes)}`);
  });
});

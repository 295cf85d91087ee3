/**
 * Helpers for the black-box tool and permission tests (turn-tools, turn-permissions,
 * turn-shell): what the model was shown in a request, a turn whose approvals are answered as it
 * asks them, and the session's records.
 */
import assert from "node:assert/strict";
import {
  answer,
  type CallSpec,
  type SeenRequest,
  text,
} from "../fixtures/chat-completions-server.js";
import type { TestChild } from "../helpers/child.js";
import {
  finishTurn,
  startTurn,
  type TurnEvent,
  type TurnResultShape,
  type TurnWorld,
} from "./turn-harness.js";

// biome-ignore lint/suspicious/noExplicitAny: wire messages and records are read freely.
export type Loose = any;

/** The names of the tools a model request offered, in order. */
export function offeredNames(request: SeenRequest | undefined): string[] {
  assert.ok(request, "the model was called");
  return (request.body.tools ?? []).map((t: Loose) => t.function.name);
}

/** The `tool` message answering `callId` in a model request (exactly one). */
export function toolMessage(request: SeenRequest | undefined, callId: string): Loose {
  assert.ok(request, "the model was called");
  const found = request.body.messages.filter(
    (m: Loose) => m.role === "tool" && m.tool_call_id === callId,
  );
  assert.equal(found.length, 1, `one tool message answers ${callId}`);
  return found[0];
}

/** The content of the tool message answering `callId`. */
export function resultText(request: SeenRequest | undefined, callId: string): string {
  return toolMessage(request, callId).content;
}

/** The event bodies of one type, in order. */
export function bodiesOf(events: TurnEvent[], type: string): Loose[] {
  return events.filter((e) => e.event.type === type).map((e) => e.event);
}

/** The one event body of a type for an item. */
export function itemEvent(events: TurnEvent[], type: string, itemId: string): Loose {
  const found = bodiesOf(events, type).filter((e) => e.item_id === itemId);
  assert.equal(found.length, 1, `one ${type} for ${itemId}`);
  return found[0];
}

export interface TurnRun {
  result: TurnResultShape;
  events: TurnEvent[];
  /** Each `approval_requested` event body, in order. */
  approvals: Loose[];
}

/**
 * Runs a turn to its result, answering each approval it asks for with the next decision (in
 * order). Fails when it asks more often than there are decisions, or fewer.
 */
export async function runApproving(
  child: TestChild,
  input: string,
  permissions: string | undefined,
  decisions: (string | { decision: string; path_glob?: string })[],
): Promise<TurnRun> {
  const turn = startTurn(child, input, permissions);
  const approvals: Loose[] = [];
  const fresh = (e: TurnEvent) => !approvals.some((a) => a.approval_id === e.event.approval_id);
  const answering = (async () => {
    for (const choice of decisions) {
      const asked = await turn.event("approval_requested", fresh, 60_000);
      approvals.push(asked.event);
      const { decision, ...scope } = typeof choice === "string" ? { decision: choice } : choice;
      const reply = await child.request("turn.approve", {
        approval_id: asked.event.approval_id,
        decision,
        ...scope,
      });
      assert.deepEqual(reply.result, {
        approval_id: asked.event.approval_id,
        decision,
        state: "applied",
      });
    }
  })();
  answering.catch(() => {}); // awaited below; a failure there is reported once
  // The turn ending first means it asked fewer times; an approval past the decisions, more.
  const first = await Promise.race([
    turn.response.then((frame) => ({ frame })),
    answering.then(() => null),
  ]);
  if (first) {
    assert.equal(approvals.length, decisions.length, "the turn asked fewer times than expected");
    await answering;
  }
  if (!first)
    await Promise.race([
      turn.response,
      turn.event("approval_requested", fresh, 60_000).then((extra) => {
        throw new assert.AssertionError({
          message: `an approval past the expected ones: ${JSON.stringify(extra.event)}`,
        });
      }),
    ]);
  const { result, events } = await finishTurn(child, turn);
  assert.equal(
    bodiesOf(events, "approval_requested").length,
    decisions.length,
    "the turn asked exactly as often as expected",
  );
  return { result, events, approvals };
}

/**
 * A turn at `permissions` whose model makes `calls`, one a step, then says "Finished.", its
 * approvals answered with `decisions` (runApproving); it must complete.
 */
export async function runCallsTurn(
  w: TurnWorld,
  permissions: string,
  calls: CallSpec[],
  decisions: (string | { decision: string; path_glob?: string })[] = [],
): Promise<TurnRun> {
  for (const c of calls) w.server.reply(answer({ calls: [c] }));
  w.server.reply(text("Finished."));
  const run = await runApproving(w.child, "do the work", permissions, decisions);
  assert.equal(run.result.status, "completed");
  return run;
}

/** Every record of a session, through `session.history` (all pages). */
export async function recordsOf(child: TestChild, sessionId: string): Promise<Loose[]> {
  const records: Loose[] = [];
  let cursor: string | null | undefined;
  do {
    const page: Loose = await child.call("session.history", {
      id: sessionId,
      ...(cursor ? { cursor } : {}),
    } as never);
    records.push(...page.events);
    cursor = page.cursor;
  } while (cursor);
  return records;
}

/** The `tool_call` and `tool_result` records of one provider call ID. */
export function recordsOfCall(records: Loose[], callId: string): { call: Loose; result: Loose } {
  const calls = records.filter((r) => r.type === "tool_call" && r.call_id === callId);
  const results = records.filter((r) => r.type === "tool_result" && r.call_id === callId);
  assert.equal(calls.length, 1, `one tool_call record for ${callId}`);
  assert.equal(results.length, 1, `one tool_result record for ${callId}`);
  assert.equal(calls[0].item_id, results[0].item_id, "call and result share their item");
  return { call: calls[0], result: results[0] };
}

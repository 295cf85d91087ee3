import assert from "node:assert/strict";
import { utf8Length } from "../protocol/raw-json.js";
import type { SessionHistoryResult } from "../protocol/schemas/sessions.js";
import {
  TURN_EXTENSION,
  TurnEventBody,
  type TurnEventParams,
  TurnResult,
} from "../protocol/schemas/turns.js";
import { headChars } from "../protocol/text-cut.js";
import { strictJsonProblem } from "../protocol/well-formed.js";
import type { Frame } from "./frame.js";
import { nextId, type TestChild } from "./harness.js";

/**
 * Drives turns over the wire as a frontend would (turns.md section 9): `turn.start`, the
 * `turn.event` notifications of that request by `seq`, its one result, and the invariants every
 * turn holds whatever it did.
 */
export type TurnEvent = TurnEventParams;
export type TurnResultShape = TurnResult;

interface NotificationLike {
  method?: string;
  params?: TurnEvent;
}

/** The events the child sent so far for one turn request, in arrival order. */
export function eventsOf(child: TestChild, requestId: string): TurnEvent[] {
  return (child.frames as unknown as NotificationLike[])
    .filter((f) => f.method === "turn.event" && f.params?.request_id === requestId)
    .map((f) => f.params as TurnEvent);
}

export interface StartedTurn {
  id: string;
  /** The turn's terminal response frame. */
  response: Promise<Frame>;
  /** The first event of this type (and predicate) the turn sends. */
  event(
    type: TurnEvent["event"]["type"],
    match?: (e: TurnEvent) => boolean,
    timeoutMs?: number,
  ): Promise<TurnEvent>;
  events(): TurnEvent[];
}

export function startTurn(
  child: TestChild,
  input: string,
  permissions?: string,
  id = nextId("turn"),
): StartedTurn {
  const response = child.waitFor((f) => f.id === id, 60_000);
  child.send({
    id,
    method: "turn.start",
    params: { input, ...(permissions ? { permissions } : {}) },
  });
  return {
    id,
    response,
    events: () => eventsOf(child, id),
    async event(type, match = () => true, timeoutMs = 30_000) {
      const isIt = (p: TurnEvent | undefined) =>
        p?.request_id === id && p.event.type === type && match(p);
      const seen = eventsOf(child, id).find(isIt);
      if (seen) return seen;
      const frame = await child.waitFor(
        (f) => isIt((f as unknown as NotificationLike).params),
        timeoutMs,
      );
      return (frame as unknown as { params: TurnEvent }).params;
    },
  };
}

/** Waits for a started turn's result and checks the invariants; fails on an error response. */
export async function finishTurn(
  child: TestChild,
  turn: StartedTurn,
): Promise<{ result: TurnResultShape; events: TurnEvent[] }> {
  const frame = await turn.response;
  assert.ok(frame.result, `turn.start answered an error: ${JSON.stringify(frame.error)}`);
  const result = frame.result as unknown as TurnResultShape;
  const events = turn.events();
  assertTurnInvariants(child, turn.id, events, result);
  return { result, events };
}

/** Runs a turn to its result and checks the invariants every turn holds. */
export function runTurn(
  child: TestChild,
  input: string,
  permissions?: string,
): Promise<{ result: TurnResultShape; events: TurnEvent[] }> {
  return finishTurn(child, startTurn(child, input, permissions));
}

/**
 * turns.md sections 3-4: the result inside its schema, every event before it, `turn_started`
 * first, `seq` gapless from 0 in arrival order, one `turn_id`, `message_done` equal to its
 * deltas joined, every approval resolved, every event but the deltas (the bulk, checked by their
 * bounds) inside its schema (`message_done` with its `phase`, `tool_call`'s `tool`).
 */
export function assertTurnInvariants(
  child: TestChild,
  requestId: string,
  events: TurnEvent[],
  result: TurnResultShape,
): void {
  const checked = TurnResult().safeParse(result);
  assert.ok(checked.success, `the turn result is outside its schema: ${JSON.stringify(result)}`);
  assert.ok(events.length > 0, "a turn sends at least turn_started");
  const resultAt = child.frames.findIndex((f) => f.id === requestId);
  const lastEventAt = child.frames.findLastIndex(
    (f) => (f as unknown as NotificationLike).params?.request_id === requestId,
  );
  assert.ok(lastEventAt < resultAt, "every event of the turn comes before its result");
  events.forEach((e, i) => {
    assert.equal(e.seq, i, "seq counts from 0 without gaps, in arrival order");
    assert.equal(e.turn_id, result.turn_id, "every event carries the result's turn_id");
  });
  assert.equal(events[0]?.event.type, "turn_started", "turn_started comes first");
  const deltas = new Map<string, string>();
  const requested = new Set<string>();
  for (const { event } of events) {
    if (event.type === "message_delta")
      deltas.set(event.item_id, (deltas.get(event.item_id) ?? "") + event.text);
    if (event.type === "message_done")
      assert.equal(event.text, deltas.get(event.item_id) ?? "", "message_done = its deltas");
    if (!event.type.endsWith("_delta"))
      assert.ok(
        TurnEventBody().safeParse(event).success,
        `a ${event.type} event outside its schema: ${headChars(JSON.stringify(event), 300)}`,
      );
    if (event.type === "approval_requested") requested.add(event.approval_id);
    if (event.type === "approval_resolved") requested.delete(event.approval_id);
  }
  assert.equal(requested.size, 0, "every approval_requested is resolved before the result");
  assertTurnFrames(child, requestId);
}

/**
 * Every frame of the turn (its events and its result) is JSON a strict UTF-8 decoder accepts,
 * and every event but `message_done` (a whole message item) is within `event_bytes`, its whole
 * frame serialized as written.
 */
export function assertTurnFrames(child: TestChild, requestId: string): void {
  for (const frame of child.frames) {
    const params = (frame as unknown as NotificationLike).params;
    if (frame.id !== requestId && params?.request_id !== requestId) continue;
    const line = child.lineOf(frame);
    const problem = strictJsonProblem(line);
    assert.equal(
      problem,
      null,
      `a frame a strict decoder refuses (${problem}): ${headChars(line, 300)}`,
    );
    const type = (params?.event as { type?: string } | undefined)?.type;
    if (type === undefined || type === "message_done") continue;
    const bytes = utf8Length(line);
    assert.ok(
      bytes <= TURN_EXTENSION.event_bytes,
      `a ${type} event of ${bytes} bytes, over event_bytes (${TURN_EXTENSION.event_bytes})`,
    );
  }
}

/** The event bodies of one type. */
export function bodiesOf<T extends TurnEvent["event"]["type"]>(
  events: TurnEvent[],
  type: T,
): Extract<TurnEvent["event"], { type: T }>[] {
  return events
    .map((e) => e.event)
    .filter((e): e is Extract<TurnEvent["event"], { type: T }> => e.type === type);
}

/** A saved session's whole history, every page of `session.history`. */
export async function historyOf(child: TestChild, id: string): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const page: SessionHistoryResult = await child.call(
      "session.history",
      cursor === null ? { id } : { id, cursor },
      30_000,
    );
    records.push(...(page.events as Record<string, unknown>[]));
    cursor = page.complete ? null : page.cursor;
  } while (cursor !== null);
  return records;
}

/** The records of one turn, by `turn_id`. */
export function turnRecords(
  records: Record<string, unknown>[],
  turnId: string,
): Record<string, unknown>[] {
  return records.filter((r) => r.turn_id === turnId);
}

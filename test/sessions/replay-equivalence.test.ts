import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SessionEvent } from "../../src/protocol/schemas/sessions.js";
import { ReplayCollector } from "../../src/sessions/history/replay.js";
import { type Replay, ReplayWindow } from "../../src/sessions/history/replay-window.js";
import { ReplayRecord } from "../../src/sessions/records/turn-records.js";

/**
 * The replay collector defers the schema check of the records after the latest valid
 * compaction (replay.ts): held here to the collector that checked and added every record as it
 * came, kept below as the reference, over generated histories with records that fail their
 * schema in every place that could move the window (a compaction, a turn's input, a steer, a
 * turn start), tight replay bounds, tight pending bounds, and the memo's reads and copies
 * midway.
 */

/** The collector before the deferral: every record checked, then added, in file order. */
class ReferenceCollector {
  private window: ReplayWindow;
  private input: { record: ReplayRecord; bytes: number } | null = null;

  constructor(maxBytes: number) {
    this.window = new ReplayWindow(maxBytes);
  }

  copy(maxBytes: number): ReferenceCollector {
    const collector = new ReferenceCollector(maxBytes);
    collector.window = this.window.copy();
    collector.input = this.input;
    return collector;
  }

  get keptBytes(): number {
    return this.window.keptBytes;
  }

  add(event: SessionEvent, bytes: number): void {
    const parsed = ReplayRecord().safeParse(event);
    if (!parsed.success) return;
    const record = parsed.data;
    if (record.type === "user_message" && record.steer !== true) this.input = { record, bytes };
    if (record.type === "compaction") {
      const input = this.input;
      const own = input?.record.turn_id !== undefined && input.record.turn_id === record.turn_id;
      this.window.restart(record, bytes, own && input ? input : undefined);
      return;
    }
    this.window.add(record, bytes);
  }

  result(): Replay {
    return this.window.result();
  }
}

const USAGE = { input_tokens: 1, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 };
const TS = "2026-01-01T00:00:00.000Z";

/** A record of each kind, valid or not: few turn IDs, so that inputs meet their compactions. */
const turnId = fc.constantFrom("t-1", "t-2", "t-3");
const at = (turn_id: string) => ({ ts: TS, cwd: "/w", turn_id });
const record: fc.Arbitrary<SessionEvent> = fc.oneof(
  turnId.map((t) => ({
    type: "turn_start",
    ...at(t),
    model: "m/m",
    effort: null,
    permissions: "ask",
  })),
  turnId.map((t) => ({ type: "turn_start", ...at(t), effort: null })), // no model: invalid
  fc
    .record({ t: turnId, text: fc.string({ maxLength: 6 }), steer: fc.boolean() })
    .map(({ t, text, steer }) => ({
      type: "user_message",
      ...at(t),
      text,
      ...(steer ? { steer: true } : {}),
    })),
  turnId.map((t) => ({ type: "user_message", ...at(t), text: 7 })), // invalid text
  turnId.map((t) => ({ type: "user_message", ...at(t), text: "s", steer: false })), // invalid steer
  fc.constant({ type: "user_message", ts: TS, text: "from another tool" }),
  fc.constant({ type: "assistant_message", ts: TS, text: "another tool's reply" }),
  turnId.map((t) => ({ type: "assistant_message", ...at(t), text: "step", model: "m/m" })),
  turnId.map((t) => ({ type: "assistant_message", ...at(t), text: "step" })), // no model: invalid
  turnId.map((t) => ({
    type: "tool_call",
    ...at(t),
    item_id: "i",
    call_id: "c",
    tool: "read_file",
    input: { path: "a" },
  })),
  turnId.map((t) => ({
    type: "tool_result",
    ...at(t),
    item_id: "i",
    call_id: "c",
    status: "completed",
    output: "out",
  })),
  turnId.map((t) => ({
    type: "turn_end",
    ...at(t),
    status: "completed",
    stop_reason: "end_turn",
    usage: USAGE,
  })),
  turnId.map((t) => ({ type: "compaction", ...at(t), summary: "so far", tokens_before: 10 })),
  turnId.map((t) => ({ type: "compaction", ...at(t), summary: "so far", tokens_before: -1 })),
  turnId.map((t) => ({ type: "compaction", ...at(t), tokens_before: 3 })), // no summary
  fc.constant({ type: "session_meta", ts: TS, cwd: "/w", id: "s" }),
  fc.constant({ type: "title", ts: TS, title: "a title" }),
);

/** What the memo does to a collector between records: read its bound, or go on in a copy. */
type Step =
  | { kind: "add"; event: SessionEvent; bytes: number }
  | { kind: "kept" }
  | { kind: "copy" };
const step: fc.Arbitrary<Step> = fc
  .oneof(
    {
      weight: 20,
      arbitrary: fc.record({ event: record, bytes: fc.integer({ min: 1, max: 120 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "kept" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "copy" as const }) },
  )
  .map((s) => ("event" in s ? { kind: "add" as const, ...s } : s));

function run(steps: Step[], maxBytes: number, pendingBytes: number) {
  let ours = new ReplayCollector(maxBytes, pendingBytes);
  let reference = new ReferenceCollector(maxBytes);
  for (const s of steps) {
    if (s.kind === "add") {
      ours.add(s.event, s.bytes);
      reference.add(s.event, s.bytes);
    } else if (s.kind === "kept") {
      assert.equal(ours.keptBytes, reference.keptBytes);
    } else {
      ours = ours.copy();
      reference = reference.copy(maxBytes);
    }
  }
  return { ours, reference };
}

describe("replay collector: the deferred schema check keeps the window exactly", () => {
  it("equals checking every record as it comes, whatever the records, bounds and reads", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 80 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 0, max: 600 }),
        (steps, maxBytes, pendingBytes) => {
          const { ours, reference } = run(steps, maxBytes, pendingBytes);
          assert.deepEqual(ours.result(), reference.result());
          assert.equal(ours.keptBytes, reference.keptBytes);
        },
      ),
      { numRuns: 2000 },
    );
  });

  const user = (text: string, extra: object = {}) => ({
    type: "user_message",
    ...at("t-1"),
    text,
    ...extra,
  });
  const compaction = (extra: object = {}) => ({
    type: "compaction",
    ...at("t-1"),
    summary: "so far",
    tokens_before: 10,
    ...extra,
  });
  const start = {
    type: "turn_start",
    ...at("t-1"),
    model: "m/m",
    effort: null,
    permissions: "ask",
  };
  const collect = (events: object[]) => {
    const collector = new ReplayCollector(1_000_000);
    for (const event of events) collector.add(event as SessionEvent, 10);
    return collector.result().records;
  };

  it("a compaction that fails its schema starts nothing: the records before it stay", () => {
    const kept = collect([start, user("before"), compaction({ tokens_before: -1 }), user("after")]);
    assert.deepEqual(
      kept.map((r) => (r as { text?: string }).text ?? r.type),
      ["turn_start", "before", "after"],
    );
  });

  it("the compaction keeps its turn's newest valid, non-steer input, not a later invalid one", () => {
    const kept = collect([
      start,
      user("the input"),
      user("a steer", { steer: true }),
      user("invalid", { text: ["not a string"] }),
      compaction(),
    ]);
    assert.deepEqual(
      kept.map((r) => (r as { text?: string }).text ?? r.type),
      ["compaction", "the input"],
    );
  });

  it("a user message that fails the turn schema but is another tool's message is an input", () => {
    // Attachments that are not an array fail the turn's schema, and the foreign message's
    // (which has no `attachments`) takes it whole: it is valid, so it is the compaction's input.
    const kept = collect([
      start,
      user("the input"),
      user("foreign", { attachments: 1 }),
      compaction(),
    ]);
    assert.deepEqual(
      kept.map((r) => (r as { text?: string }).text ?? r.type),
      ["compaction", "foreign"],
    );
  });

  it("an input older than the pending records still reaches its turn's compaction", () => {
    // The input is checked and added when the pending bound is passed; only invalid records
    // wait after it.
    const collector = new ReplayCollector(1_000_000, 15);
    for (const event of [start, user("the input"), user("bad", { text: 1 }), compaction()])
      collector.add(event as SessionEvent, 10);
    assert.deepEqual(
      collector.result().records.map((r) => (r as { text?: string }).text ?? r.type),
      ["compaction", "the input"],
    );
  });

  it("holds records unchecked up to PENDING bytes of lines, and checks them one byte past", () => {
    // A record's fields are read only when it is checked: its `text` counts the reads.
    let reads = 0;
    const watched = () => {
      const event = { type: "assistant_message", ...at("t-1"), model: "m/m" };
      Object.defineProperty(event, "text", {
        enumerable: true,
        get: () => {
          reads += 1;
          return "step";
        },
      });
      return event as unknown as SessionEvent;
    };
    const atBound = new ReplayCollector(1_000_000, 100);
    atBound.add(watched(), 60);
    atBound.add(watched(), 40);
    assert.equal(reads, 0, "100 bytes held at a bound of 100: nothing checked yet");
    const pastBound = new ReplayCollector(1_000_000, 100);
    pastBound.add(watched(), 60);
    pastBound.add(watched(), 41);
    assert.ok(reads > 0, "101 bytes: the held records were checked and added");
    assert.equal(pastBound.result().records.length, 2);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { checkDeltaParams } from "../../src/protocol/schemas/turn-delta-check.js";
import { TURN_EXTENSION, TurnEventParams } from "../../src/protocol/schemas/turns.js";

const DELTAS = new Set(["message_delta", "reasoning_delta", "tool_output_delta"]);
const BOUND = TURN_EXTENSION.event_bytes;

/**
 * The fast check against the schema: whatever it accepts the schema accepts, parsed to the same
 * value and the same JSON; every delta the schema accepts it accepts too (else the fast path
 * would be no path); everything else it leaves to the schema (null).
 */
function agrees(params: unknown): void {
  const fast = checkDeltaParams(params);
  const parsed = TurnEventParams().safeParse(params);
  const type = (params as { event?: { type?: unknown } } | null)?.event?.type;
  if (fast !== null) {
    assert.ok(parsed.success, `fast accepted what the schema refuses: ${show(params)}`);
    assert.deepEqual(fast, parsed.data);
    assert.equal(JSON.stringify(fast), JSON.stringify(parsed.data));
  } else if (parsed.success) {
    assert.ok(!DELTAS.has(type as string), `fast refused a valid delta: ${show(params)}`);
  }
}

const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

const base = (event: Record<string, unknown>): Record<string, unknown> => ({
  request_id: "turn-1",
  turn_id: "t-abc",
  seq: 7,
  event,
});
const message = { type: "message_delta", item_id: "item_1", text: "Hello" };
const output = { type: "tool_output_delta", item_id: "item_2", stream: "stderr", text: "x" };

describe("the fast delta check agrees with the TurnEventParams schema", () => {
  test("valid deltas of each type are accepted, rebuilt in the schema's key order", () => {
    for (const event of [
      message,
      { ...message, type: "reasoning_delta" },
      output,
      { ...output, stream: "stdout" },
      { text: "reordered", item_id: "a.b:c-d_e", type: "message_delta" },
      { ...message, text: "" },
      { ...message, text: 'ü€😀\u0000\n"\\' },
    ]) {
      const params = base(event);
      assert.notEqual(checkDeltaParams(params), null, show(params));
      agrees(params);
    }
    const reordered = { event: message, seq: 0, turn_id: "t", request_id: "r" };
    assert.equal(
      JSON.stringify(checkDeltaParams(reordered)),
      JSON.stringify(TurnEventParams().parse(reordered)),
    );
  });

  test("a delta's text at event_bytes is accepted, one byte past it is not", () => {
    for (const unit of ["a", "é", "€", "😀"]) {
      const size = Buffer.byteLength(unit);
      const fits = unit.repeat(Math.floor(BOUND / size));
      const atBound = fits + "a".repeat(BOUND - Buffer.byteLength(fits));
      assert.equal(Buffer.byteLength(atBound), BOUND);
      agrees(base({ ...message, text: atBound }));
      assert.notEqual(checkDeltaParams(base({ ...message, text: atBound })), null);
      agrees(base({ ...message, text: `${atBound}a` }));
      assert.equal(checkDeltaParams(base({ ...message, text: `${atBound}a` })), null);
    }
  });

  test("invalid envelopes and events are left to the schema, which refuses them", () => {
    const bad: unknown[] = [
      null,
      [],
      "text",
      { ...base(message), event: [] },
      base({ ...message, extra: 1 }),
      base({ ...message, extra: undefined }),
      base({ type: "message_delta", item_id: "i" }),
      base({ ...message, item_id: "" }),
      base({ ...message, item_id: "x".repeat(65) }),
      base({ ...message, item_id: "has space" }),
      base({ ...message, item_id: 5 }),
      base({ ...message, text: 5 }),
      base({ ...message, text: null }),
      base({ ...message, type: "message_done" }),
      base({ ...message, type: "tool_output_delta" }),
      base({ ...output, stream: "stdin" }),
      base({ ...output, stream: undefined }),
      base({ ...message, stream: "stdout" }),
      { ...base(message), seq: -1 },
      { ...base(message), seq: 1.5 },
      { ...base(message), seq: Number.NaN },
      { ...base(message), seq: Number.POSITIVE_INFINITY },
      { ...base(message), seq: "1" },
      { ...base(message), seq: 2 ** 53 },
      { ...base(message), request_id: "" },
      { ...base(message), request_id: "bad id" },
      { ...base(message), turn_id: "x".repeat(65) },
      { ...base(message), extra: true },
      { request_id: "r", turn_id: "t", seq: 0 },
      JSON.parse(
        '{"request_id":"r","turn_id":"t","seq":0,"event":{"type":"message_delta","item_id":"i","text":"x","__proto__":1}}',
      ),
    ];
    for (const params of bad) {
      assert.equal(checkDeltaParams(params), null, show(params));
      agrees(params);
    }
  });

  test("other events are always left to the schema", () => {
    agrees(base({ type: "message_done", item_id: "i", text: "whole" }));
    assert.equal(checkDeltaParams(base({ type: "message_done", item_id: "i", text: "w" })), null);
    agrees(base({ type: "compacted", tokens_before: 2, tokens_after: 1 }));
  });

  test("random mutations of valid deltas: never accepted unless the schema accepts", () => {
    const id = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
      fc.string({ maxLength: 70 }),
      fc.constant(""),
    );
    const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null), id);
    const event = fc.record(
      {
        type: fc.constantFrom(
          "message_delta",
          "reasoning_delta",
          "tool_output_delta",
          "message_done",
          "other",
        ),
        item_id: fc.oneof(id, value),
        stream: fc.oneof(fc.constantFrom("stdout", "stderr", "stdin"), value),
        text: fc.oneof(fc.string({ unit: "grapheme" }), value),
        extra: value,
      },
      { requiredKeys: [] },
    );
    const params = fc.record(
      {
        request_id: fc.oneof(id, value),
        turn_id: fc.oneof(id, value),
        seq: fc.oneof(fc.nat(), fc.integer(), fc.double(), value),
        event: fc.oneof(event, value),
        extra: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(params, (p) => agrees(p)),
      { numRuns: 3000 },
    );
  });
});

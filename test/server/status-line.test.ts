import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { encodeResult } from "../../src/protocol/envelope.js";
import { checkStatusResult } from "../../src/protocol/schemas/status-check.js";
import { StatusLines } from "../../src/server/status-line.js";
import { VALID_STATUS } from "../fixtures/status-result.js";

/**
 * The kept status JSON is reused only while the result is equal: every line is the one
 * `encodeResult` writes for the checked result, whatever came before it.
 */
const expected = (id: string, value: unknown): string | null => {
  const checked = checkStatusResult(value);
  return checked === null ? null : encodeResult(id, checked, false);
};

const valid = VALID_STATUS;

describe("StatusLines", () => {
  test("each field's change makes a new line; an equal result reuses the JSON", () => {
    const lines = new StatusLines();
    const variants: unknown[] = [
      valid,
      { ...valid },
      { ...valid, state: "shutting_down" },
      { ...valid, cwd: "/work/späce" },
      { ...valid, attachment: null },
      { ...valid, attachment: { session_id: "s-1", saved: false } },
      { ...valid, attachment: { session_id: "s-2", saved: false } },
      { ...valid, selection: { model: "openai/gpt-5", effort: null } },
      { ...valid, selection: { model: null, effort: null } },
      { ...valid, worker: "idle" },
      { ...valid, active_requests: [] },
      { ...valid, active_requests: [{ id: "r2", method: "session.list" }] },
      { ...valid, active_requests: [{ id: "r1", method: "turn.start" }] },
      {
        ...valid,
        active_requests: [
          { id: "r2", method: "turn.start" },
          { id: "r3", method: "x" },
        ],
      },
      { ...valid, requests_left: 0 },
      { ...valid, extra: 1 },
      valid,
    ];
    // Each variant right after the valid result and before it again: one field apart each way.
    const sequence = variants.flatMap((value) => [value, valid]);
    sequence.forEach((value, i) => {
      assert.equal(lines.line(`p${i}`, value), expected(`p${i}`, value), JSON.stringify(value));
    });
  });

  test("random sequences of results agree with encodeResult at every step", () => {
    const text = fc.constantFrom("a", "b", "s-1", "/w");
    const result = fc.record({
      state: fc.constantFrom("uninitialized", "ready", "shutting_down", "stopped"),
      cwd: text,
      attachment: fc.oneof(
        fc.constant(null),
        fc.record({ session_id: text, saved: fc.oneof(fc.boolean(), fc.constant(0)) }),
      ),
      selection: fc.record({
        model: fc.oneof(fc.constant(null), text),
        effort: fc.oneof(fc.constant(null), fc.constantFrom("low", "high")),
      }),
      worker: fc.constantFrom("idle", "busy"),
      active_requests: fc.array(fc.record({ id: text, method: text }), { maxLength: 2 }),
      requests_left: fc.constantFrom(0, 1, 4096, -1),
    });
    fc.assert(
      fc.property(fc.array(result, { maxLength: 12 }), (values) => {
        const lines = new StatusLines();
        values.forEach((value, i) => {
          assert.equal(lines.line(`p${i}`, value), expected(`p${i}`, value));
        });
      }),
      { numRuns: 500 },
    );
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { StatusResult } from "../../src/protocol/schemas/lifecycle.js";
import { checkStatusResult } from "../../src/protocol/schemas/status-check.js";
import { VALID_STATUS } from "../fixtures/status-result.js";

/**
 * The fast status check against the schema: whatever it accepts the schema accepts, parsed to
 * the same value and the same JSON; every result the schema accepts it accepts too (else the
 * fast path would be no path).
 */
function agrees(value: unknown): void {
  const fast = checkStatusResult(value);
  const parsed = StatusResult().safeParse(value);
  const shown = JSON.stringify(value) ?? String(value);
  if (fast !== null) {
    assert.ok(parsed.success, `fast accepted what the schema refuses: ${shown}`);
    assert.deepEqual(fast, parsed.data);
    assert.equal(JSON.stringify(fast), JSON.stringify(parsed.data));
  } else {
    assert.ok(!parsed.success, `fast refused a valid status: ${shown}`);
  }
}

const valid = VALID_STATUS;

describe("the fast status check agrees with the StatusResult schema", () => {
  test("valid results are accepted, rebuilt in the schema's key order", () => {
    const reordered = Object.fromEntries(Object.entries(valid).reverse());
    for (const value of [
      valid,
      reordered,
      { ...valid, attachment: null, selection: { model: null, effort: null }, active_requests: [] },
      { ...valid, state: "uninitialized", worker: "idle", requests_left: 0 },
      { ...valid, state: "shutting_down", cwd: "" },
      { ...valid, attachment: { saved: false, session_id: "A_b-9" } },
    ]) {
      assert.notEqual(checkStatusResult(value), null, JSON.stringify(value));
      agrees(value);
    }
    assert.equal(JSON.stringify(checkStatusResult(reordered)), JSON.stringify(valid));
  });

  test("each way out of the schema is refused by both", () => {
    const broken: unknown[] = [
      null,
      [],
      "ready",
      { ...valid, extra: 1 },
      { ...valid, state: "stopped" },
      { ...valid, worker: "idle " },
      { ...valid, cwd: 7 },
      { ...valid, requests_left: -1 },
      { ...valid, requests_left: 1.5 },
      { ...valid, requests_left: 2 ** 53 },
      { ...valid, requests_left: Number.NaN },
      { ...valid, requests_left: "1" },
      { ...valid, attachment: { session_id: "-bad", saved: true } },
      { ...valid, attachment: { session_id: "s", saved: 1 } },
      { ...valid, attachment: { session_id: "s", saved: true, x: 1 } },
      { ...valid, attachment: { session_id: "s" } },
      { ...valid, attachment: undefined },
      { ...valid, selection: null },
      { ...valid, selection: { model: "", effort: null } },
      { ...valid, selection: { model: null, effort: "High" } },
      { ...valid, selection: { model: null } },
      { ...valid, active_requests: [{ id: "a b", method: "m" }] },
      { ...valid, active_requests: [{ id: "a", method: 1 }] },
      { ...valid, active_requests: [{ id: "a", method: "m", x: 0 }] },
      { ...valid, active_requests: {} },
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== "cwd")),
      JSON.parse(
        '{"state":"ready","cwd":"/","attachment":null,"selection":{"model":null,"effort":null},"worker":"idle","active_requests":[],"__proto__":1}',
      ),
    ];
    for (const value of broken) {
      assert.equal(checkStatusResult(value), null, JSON.stringify(value));
      agrees(value);
    }
  });

  test("random results and their mutations get the same verdict", () => {
    const id = fc.oneof(fc.constantFrom("r1", "a.b:c-d_e", "", "a b", "-x"), fc.string());
    const result = fc.record({
      state: fc.oneof(fc.constantFrom("uninitialized", "ready", "shutting_down"), fc.string()),
      cwd: fc.oneof(fc.string(), fc.integer()),
      attachment: fc.oneof(
        fc.constant(null),
        fc.record({ session_id: id, saved: fc.oneof(fc.boolean(), fc.constant(0)) }),
      ),
      selection: fc.record({
        model: fc.oneof(fc.constant(null), id),
        effort: fc.oneof(fc.constant(null), fc.constantFrom("low", "x-high", "Low", "")),
      }),
      worker: fc.constantFrom("idle", "busy", "other"),
      active_requests: fc.array(fc.record({ id, method: fc.oneof(fc.string(), fc.nat()) }), {
        maxLength: 3,
      }),
      requests_left: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(2 ** 53)),
    });
    fc.assert(
      fc.property(result, (value) => agrees(value)),
      { numRuns: 2000 },
    );
  });
});

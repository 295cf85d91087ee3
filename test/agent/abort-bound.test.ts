import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { settledOrAbandoned, untilAborted } from "../../src/agent/abort-bound.js";

const never = () => new Promise<never>(() => {});

describe("abort bound (nothing a tool does outlives an interrupt)", () => {
  test("a call that settles is its own outcome, before or after the abort", async () => {
    const controller = new AbortController();
    assert.deepEqual(await settledOrAbandoned(Promise.resolve(7), controller.signal, 10), {
      settled: true,
      value: 7,
    });
    controller.abort();
    assert.deepEqual(await settledOrAbandoned(Promise.resolve(8), controller.signal, 10_000), {
      settled: true,
      value: 8,
    });
    await assert.rejects(settledOrAbandoned(Promise.reject(new Error("x")), controller.signal));
  });

  test("a call that never settles is given up once aborted for the grace, not before", async () => {
    const controller = new AbortController();
    let outcome: unknown = null;
    const bounded = settledOrAbandoned(never(), controller.signal, 20).then((o) => {
      outcome = o;
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(outcome, null, "no abort: it waits");
    controller.abort();
    await bounded;
    assert.deepEqual(outcome, { settled: false });
  });

  test("a call given up that fails later is no unhandled rejection", async () => {
    const controller = new AbortController();
    controller.abort();
    let fail = (_: Error) => {};
    const late = new Promise<never>((_, reject) => {
      fail = reject;
    });
    assert.deepEqual(await settledOrAbandoned(late, controller.signal, 1), { settled: false });
    fail(new Error("too late"));
    // An unhandled rejection would fail the test run.
    await new Promise((resolve) => setImmediate(resolve));
  });

  test("a delivery stops holding its producer at the abort", async () => {
    const controller = new AbortController();
    const held = untilAborted(never(), controller.signal);
    controller.abort();
    await held;
    await untilAborted(Promise.reject(new Error("refused late")), controller.signal);
    await assert.rejects(
      untilAborted(Promise.reject(new Error("refused")), new AbortController().signal),
    );
  });
});

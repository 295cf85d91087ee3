import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import {
  assertCancelled,
  assertCleanExit,
  assertError,
  indexOfResponse,
  responsesTo,
  startSleep,
  untilActive,
  within,
} from "../expect.js";
import { nextId } from "../harness.js";

/**
 * Cancellation at every moment of an operation's life, with the test-only slow operation
 * `test.sleep` (so these need the test methods): before it starts, while it runs, after it
 * finished, twice, racing its own completion, racing shutdown, and against operations that
 * ignore the signal. The invariant everywhere: exactly one terminal response per admitted
 * request, and never a completed result after an acknowledged cancellation.
 */
const CANCEL = ["operation.cancel"];
const ACK_NOT_COMPLETION =
  "extensions §Operation cancellation: Acknowledgement is not completion or rollback; correlate original request's terminal response separately.";
const EXACTLY_ONE =
  "base §2: Every admitted request gets exactly one terminal response, cancelled ones included (operation_cancelled).";

export const CANCEL_TIMING_CASES: ConformanceCase[] = [
  {
    id: "cancel.timing.before_start",
    tier: "MUST",
    clause:
      "extensions §Operation cancellation: Missing/completed/different request returns operation_missing.",
    title: "cancelling an ID before its request is sent is operation_missing and harms nothing",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const id = nextId("later");
      const early = await child.request("operation.cancel", { request_id: id });
      assertError(early, "operation_missing", "cancel of a request not yet sent");
      const sleep = await startSleep(child, 20, { id }).done;
      assert.deepEqual(sleep.result, { slept_ms: 20 }, "the later request runs normally");
    },
  },
  {
    id: "cancel.timing.same_write",
    tier: "MUST",
    clause: EXACTLY_ONE,
    title:
      "cancel in the same write as its request, before the work starts: one operation_cancelled",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const id = nextId("sleep");
      const cancelId = nextId("cancel");
      const terminal = child.waitFor((f) => f.id === id, 5000);
      const ack = child.waitFor((f) => f.id === cancelId);
      child.send(
        `${JSON.stringify({ id, method: "test.sleep", params: { ms: 30_000 } })}\n` +
          `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: id } })}\n`,
      );
      assert.deepEqual((await ack).result, { state: "cancelling", request_id: id });
      assertCancelled(await terminal, "sleep cancelled before it started");
    },
  },
  {
    id: "cancel.timing.during",
    tier: "MUST",
    clause: ACK_NOT_COMPLETION,
    title: "cancel while running: acknowledgement first, then exactly one operation_cancelled",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 30_000);
      await untilActive(child, sleep.id);
      const ack = await child.request("operation.cancel", { request_id: sleep.id });
      assert.deepEqual(ack.result, { state: "cancelling", request_id: sleep.id });
      assertCancelled(await within(sleep.done, 5000, "terminal response"), "cancelled sleep");
      const ackId = child.frames.indexOf(ack);
      assert.ok(indexOfResponse(child, sleep.id) > ackId, "the acknowledgement comes first");
    },
  },
  {
    id: "cancel.timing.after_completion",
    tier: "MUST",
    clause:
      "base §Operation cancellation (issue 2): operation_missing for missing, completed, or non-cancellable requests.",
    title: "cancel after the request completed is operation_missing; the result stands",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 5);
      assert.deepEqual((await sleep.done).result, { slept_ms: 5 });
      const late = await child.request("operation.cancel", { request_id: sleep.id });
      assertError(late, "operation_missing", "cancel after completion");
      assert.equal(responsesTo(child, sleep.id), 1, "still exactly one response");
    },
  },
  {
    id: "cancel.timing.twice",
    tier: "MUST",
    clause: EXACTLY_ONE,
    title: "cancelling twice (in one write) yields one terminal response",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 30_000);
      await untilActive(child, sleep.id);
      const first = nextId("cancel");
      const second = nextId("cancel");
      const answers = [first, second].map((id) => child.waitFor((f) => f.id === id));
      const frame = (id: string) =>
        `${JSON.stringify({ id, method: "operation.cancel", params: { request_id: sleep.id } })}\n`;
      child.send(frame(first) + frame(second));
      const [a, b] = await Promise.all(answers);
      assert.deepEqual(a?.result, { state: "cancelling", request_id: sleep.id });
      assert.ok(
        b?.result?.state === "cancelling" || b?.error?.code === "operation_missing",
        `second cancel: cancelling or operation_missing, got ${JSON.stringify(b)}`,
      );
      assertCancelled(await within(sleep.done, 5000, "terminal response"), "cancelled sleep");
    },
  },
  {
    id: "cancel.timing.racing_completion",
    tier: "SHOULD",
    clause:
      "extensions §Deliberate provider refresh: Cancellation returns operation_cancelled, not an outcome claiming completed refresh.",
    title: "cancel racing completion: acknowledged means cancelled, missing means completed",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      for (let round = 0; round < 20; round += 1) {
        const sleep = startSleep(child, round % 4);
        const ack = await child.request("operation.cancel", { request_id: sleep.id });
        const terminal = await within(sleep.done, 5000, "terminal response");
        if (ack.result) assertCancelled(terminal, `round ${round}: acknowledged cancel`);
        else {
          assertError(ack, "operation_missing", `round ${round}: cancel`);
          assert.deepEqual(terminal.result, { slept_ms: round % 4 }, `round ${round}: completed`);
        }
      }
    },
  },
  {
    id: "cancel.timing.racing_shutdown",
    tier: "MUST",
    clause:
      "base §5: shutdown: cancel everything in flight, wait at most cleanup_ms for it to drain (drained requests still get their terminal response), answer {state: stopped}, exit 0.",
    title: "cancel and shutdown in one write: one terminal each, then stopped, exit 0",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 30_000);
      await untilActive(child, sleep.id);
      const cancelId = nextId("cancel");
      const stopId = nextId("stop");
      const cancel = child.waitFor((f) => f.id === cancelId);
      const stop = child.waitFor((f) => f.id === stopId, 5000);
      child.send(
        `${JSON.stringify({ id: cancelId, method: "operation.cancel", params: { request_id: sleep.id } })}\n` +
          `${JSON.stringify({ id: stopId, method: "shutdown", params: {} })}\n`,
      );
      assertCancelled(await within(sleep.done, 3000, "terminal response"), "sleep");
      const ack = await cancel;
      assert.ok(
        ack.result?.state === "cancelling",
        `cancel before shutdown: ${JSON.stringify(ack)}`,
      );
      assert.deepEqual((await stop).result, { state: "stopped" });
      assert.ok(
        indexOfResponse(child, sleep.id) < indexOfResponse(child, stopId),
        "the drained request is answered before stopped",
      );
      await assertCleanExit(child, 3000);
    },
  },
  {
    id: "cancel.timing.stubborn",
    tier: "MUST",
    clause: ACK_NOT_COMPLETION,
    title: "an operation that ignores the signal still ends with operation_cancelled, not a result",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      // Stubborn for 3 s: status is answered while it drains (the order of the answers shows it;
      // no round-trip time is asserted).
      const sleep = startSleep(child, 3000, { stubborn: true });
      await untilActive(child, sleep.id);
      const ack = await child.request("operation.cancel", { request_id: sleep.id });
      assert.equal(ack.result?.state, "cancelling");
      const status = await within(child.request("status", {}), 10_000, "status while draining");
      assert.equal(status.result?.state, "ready", "status answers while cancellation drains");
      assert.ok(!child.frames.some((f) => f.id === sleep.id), "answered before the sleep ended");
      assertCancelled(await within(sleep.done, 10_000, "terminal response"), "stubborn sleep");
    },
  },
  {
    id: "shutdown.cleanup_bound.stubborn",
    tier: "MUST",
    clause:
      "base §5 and extensions §Deliberate provider refresh: Cleanup still waits at most 2000 ms, independent of worker completion.",
    title: "16 stubborn operations: each gets one operation_cancelled within the cleanup bound",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleeps = Array.from({ length: 16 }, () =>
        startSleep(child, 20_000, { stubborn: true }),
      );
      await untilActive(child, (sleeps[15] as { id: string }).id);
      const started = Date.now();
      const stop = child.request("shutdown", {}, nextId("stop"), 5000);
      for (const sleep of sleeps) {
        assertCancelled(await within(sleep.done, 4000, "terminal response"), sleep.id);
      }
      assert.deepEqual((await stop).result, { state: "stopped" });
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 2000 + 1500, `shutdown answered after ${elapsed} ms (bound 2000 ms)`);
      await assertCleanExit(child, 3000);
    },
  },
];

import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import { waitActive } from "./base-admission.js";

const STATUS = "base-protocol.md §5";
const CANCEL = "local-agent-extensions.md, Operation cancellation";

export const LIFECYCLE_CASES: ConformanceCase[] = [
  {
    id: "base.status.responsive",
    tier: "MUST",
    clause: `base-protocol.md §3: "status and shutdown are answered on the protocol loop at any time ... while everything else is busy"`,
    title: "status answers while slow operations run, before any of them ends",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      // The slow operations last a minute and are cancelled: every status answer must come while
      // they run, however slow the machine (no round-trip time is asserted; that is for benchmarks).
      const slow = child.request("test.sleep", { ms: 60_000 }, "slow");
      const worker = child.request("test.sleep_worker", { ms: 60_000 }, "slow-w");
      await waitActive(child, "slow-w");
      for (let i = 0; i < 10; i++) {
        const status = await child.call("status", {});
        assert.equal(status.worker, "busy");
        assert.deepEqual(status.active_requests.map((r) => r.method).sort(), [
          "test.sleep",
          "test.sleep_worker",
        ]);
      }
      assert.ok(!child.frames.some((f) => f.id === "slow" || f.id === "slow-w"), "still running");
      await child.request("operation.cancel", { request_id: "slow" });
      await child.request("operation.cancel", { request_id: "slow-w" });
      await slow;
      await worker;
    },
  },
  {
    id: "base.shutdown.cancels-in-flight",
    tier: "MUST",
    clause: `${STATUS}: "shutdown ... cancel everything in flight, wait at most cleanup_ms for it to drain (drained requests still get their terminal response), answer {state: stopped}, exit 0"`,
    title: "shutdown during a slow operation cancels it, answers stopped and exits 0",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const slow = child.request("test.sleep", { ms: 30_000 }, "slow");
      await waitActive(child, "slow");
      const started = performance.now();
      const stopped = await child.request("shutdown", {}, "bye");
      assert.ok(performance.now() - started < 2500, "shutdown answered within the cleanup bound");
      assert.deepEqual(stopped.result, { state: "stopped" });
      assert.equal((await slow).error?.code, "operation_cancelled");
      const order = child.frames.map((f) => f.id);
      assert.ok(
        order.indexOf("slow") < order.indexOf("bye"),
        "drained request answered before shutdown",
      );
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    },
  },
  {
    id: "base.shutdown.cleanup-bound",
    tier: "MUST",
    clause: `${STATUS}: "wait at most cleanup_ms for it to drain"; base §2: "Every admitted request gets exactly one terminal response"`,
    title:
      "work that ignores cancellation is answered operation_cancelled at the 2000 ms bound, once",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      child.send({ id: "stubborn", method: "test.sleep", params: { ms: 10_000, stubborn: true } });
      await waitActive(child, "stubborn");
      const started = performance.now();
      const stopped = child.request("shutdown", {}, "bye");
      assert.equal(await child.errorCode("status", { extra: 1 }), "invalid_params");
      assert.equal(await child.errorCode("test.sleep", { ms: 1 }), "shutting_down");
      assert.deepEqual((await stopped).result, { state: "stopped" });
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 1500 && elapsed < 2000 + 1500, `shutdown took ${elapsed} ms`);
      assert.deepEqual(await child.exited, { code: 0, signal: null });
      assert.equal(child.frames.filter((f) => f.id === "stubborn").length, 1);
      assert.equal(
        child.frames.find((f) => f.id === "stubborn")?.error?.code,
        "operation_cancelled",
      );
    },
  },
  {
    id: "base.shutdown.before-initialize",
    tier: "MUST",
    clause: `base-protocol.md §3: "status and shutdown are answered ... also before initialize"`,
    title: "shutdown before initialize answers stopped and exits 0",
    async run(ctx) {
      const child = ctx.spawn();
      assert.deepEqual((await child.request("shutdown", {})).result, { state: "stopped" });
      assert.deepEqual(await child.exited, { code: 0, signal: null });
    },
  },
  {
    id: "base.shutdown.eof",
    tier: "MUST",
    clause: `base-protocol.md §1: "EOF on stdin is a shutdown without a response. The child exits 0 after a clean shutdown."`,
    title: "EOF on stdin exits 0 with no shutdown response",
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const count = child.frames.length;
      child.closeStdin();
      assert.deepEqual(await child.exited, { code: 0, signal: null });
      assert.equal(child.frames.length, count);
    },
  },
  {
    id: "ext.cancel.active",
    tier: "MUST",
    clause: `${CANCEL}: "Result {state: cancelling, request_id} ... Acknowledgement is not completion; correlate original request's terminal response separately."`,
    title: "cancel of an active request is acknowledged, then the request ends operation_cancelled",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const slow = child.request("test.sleep", { ms: 30_000 }, "victim");
      await waitActive(child, "victim");
      const ack = await child.request("operation.cancel", { request_id: "victim" }, "killer");
      assert.deepEqual(ack.result, { state: "cancelling", request_id: "victim" });
      assert.equal((await slow).error?.code, "operation_cancelled");
      const order = child.frames.map((f) => f.id);
      assert.ok(
        order.indexOf("killer") < order.indexOf("victim"),
        "acknowledgement precedes the terminal response",
      );
      assert.equal(child.frames.filter((f) => f.id === "victim").length, 1);
    },
  },
  {
    id: "ext.cancel.missing",
    tier: "MUST",
    clause: `${CANCEL}: "Missing/completed/different request returns operation_missing; invalid params return invalid_params."`,
    title:
      "cancel of a finished, unknown, status or own request is operation_missing; bad params invalid_params",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      assert.ok((await child.request("test.sleep", { ms: 1 }, "done")).result);
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "done" }),
        "operation_missing",
      );
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "never" }),
        "operation_missing",
      );
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "self" }, "self"),
        "operation_missing",
      );
      await child.request("status", {}, "st");
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "st" }),
        "operation_missing",
      );
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "a b" }),
        "invalid_params",
      );
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "x", force: true }),
        "invalid_params",
      );
      assert.equal(await child.errorCode("operation.cancel", {}), "invalid_params");
    },
  },
  {
    id: "ext.cancel.twice",
    tier: "MUST",
    clause: `${CANCEL}: "It cancels only currently active ... request with that ID"; base §2: exactly one terminal response`,
    title: "cancelling twice acknowledges or reports missing, and the request still ends once",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const slow = child.request("test.sleep", { ms: 30_000 }, "twice");
      await waitActive(child, "twice");
      const c2Answer = child.waitFor((f) => f.id === "c2");
      child.send({ id: "c1", method: "operation.cancel", params: { request_id: "twice" } });
      child.send({ id: "c2", method: "operation.cancel", params: { request_id: "twice" } });
      assert.equal((await slow).error?.code, "operation_cancelled");
      const c2 = await c2Answer;
      assert.ok(c2.result?.state === "cancelling" || c2.error?.code === "operation_missing");
      await child.request("status", {});
      assert.equal(child.frames.filter((f) => f.id === "twice").length, 1);
    },
  },
];

import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import type { Frame } from "../frame.js";
import type { TestChild } from "../harness.js";

const IDS = "base-protocol.md §3";
const INIT = "base-protocol.md §4";

const CLIENT = { name: "conformance", version: "1.0.0" };

function initParams(capabilities: string[], protocol_version = 1) {
  return { protocol_version, client: CLIENT, required_capabilities: capabilities };
}

/** Sends many frames in one write and collects their answers by id. */
async function burst(
  child: TestChild,
  frames: { id: string; method: string; params: unknown }[],
): Promise<Map<string, Frame>> {
  const ids = new Set(frames.map((f) => f.id));
  const answers = new Map<string, Frame>();
  const done = new Promise<void>((resolve) => {
    const collect = (frame: Frame) => {
      if (frame.id !== null && ids.has(frame.id) && !answers.has(frame.id))
        answers.set(frame.id, frame);
      return answers.size === ids.size;
    };
    // Waiters see frames in arrival order; resolve once every id has an answer.
    void child.waitFor(collect, 60_000).then(() => resolve());
  });
  child.send(`${frames.map((f) => JSON.stringify(f)).join("\n")}\n`);
  await done;
  return answers;
}

export const ADMISSION_CASES: ConformanceCase[] = [
  {
    id: "base.ids.reuse",
    tier: "MUST",
    clause: `${IDS}: "An ID is used at most once per child: a reused ID, active or finished, is answered duplicate_request_id"`,
    title: "a finished or active request's ID is duplicate_request_id, also for status",
    needsTestMethods: true,
    async run(ctx) {
      const child = ctx.spawn();
      const init = await child.request("initialize", initParams(["operation.cancel"]), "same");
      assert.ok(init.result);
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "x" }, "same"),
        "duplicate_request_id",
      );
      assert.equal(await child.errorCode("status", {}, "same"), "duplicate_request_id");
      const slow = child.request("test.sleep", { ms: 5000 }, "slow");
      await waitActive(child, "slow");
      assert.equal(await child.errorCode("status", {}, "slow"), "duplicate_request_id");
      assert.equal(await child.errorCode("test.sleep", { ms: 1 }, "slow"), "duplicate_request_id");
      await child.request("operation.cancel", { request_id: "slow" });
      assert.equal((await slow).error?.code, "operation_cancelled");
      // status and shutdown IDs are not remembered once answered.
      assert.ok((await child.request("status", {}, "poll")).result);
      assert.ok((await child.request("status", {}, "poll")).result);
    },
  },
  {
    id: "base.ids.lifetime-4096",
    tier: "MUST",
    clause: `${IDS}: "A child admits at most limits.child_requests = 4096 requests in its life ... except status and shutdown. Past that, every request other than status and shutdown is answered child_exhausted"`,
    title:
      "the 4096th request is admitted, the 4097th is child_exhausted; status and shutdown still answer",
    async run(ctx) {
      const child = ctx.spawn();
      const before = await child.call("status", {});
      assert.equal(before.requests_left, 4096);
      assert.ok((await child.request("initialize", initParams(["operation.cancel"]), "n1")).result);
      // Requests 2..4096, whatever their outcome, all count.
      const frames = [];
      for (let n = 2; n <= 4096; n++)
        frames.push({ id: `n${n}`, method: "operation.cancel", params: { request_id: "none" } });
      const answers = await burst(child, frames);
      assert.equal(answers.get("n4096")?.error?.code, "operation_missing");
      const status = await child.call("status", {});
      assert.equal(status.requests_left, 0);
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "none" }, "n4097"),
        "child_exhausted",
      );
      assert.equal(await child.errorCode("initialize", initParams([]), "n4098"), "child_exhausted");
      // Polling after exhaustion never fails and never grows.
      for (let i = 0; i < 20; i++) assert.ok((await child.request("status", {}, "poll")).result);
    },
  },
  {
    id: "base.admission.active-16",
    tier: "MUST",
    clause: `${IDS}: "At most limits.active_requests = 16 requests are in flight at once; the next is busy."`,
    title: "16 active requests run; the 17th is busy; cancel is still admitted",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const pending = [];
      for (let i = 0; i < 16; i++)
        pending.push(child.request("test.sleep", { ms: 10_000 }, `a${i}`));
      await waitActive(child, "a15");
      const status = await child.call("status", {});
      assert.equal(status.active_requests.length, 16);
      assert.equal(await child.errorCode("test.sleep", { ms: 1 }, "a16"), "busy");
      for (let i = 0; i < 16; i++) {
        const ack = await child.request("operation.cancel", { request_id: `a${i}` });
        assert.deepEqual(ack.result, { state: "cancelling", request_id: `a${i}` });
      }
      for (const p of pending) assert.equal((await p).error?.code, "operation_cancelled");
      assert.ok(
        (await child.request("test.sleep", { ms: 1 }, "a17")).result,
        "admission reopens once drained",
      );
    },
  },
  {
    id: "base.admission.single-worker",
    tier: "MUST",
    clause: `${IDS}: "One session worker runs ... While it runs, another of them is busy at once: nothing is queued"`,
    title: "a second worker operation is busy at once while listing work still runs",
    needsTestMethods: true,
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      const first = child.request("test.sleep_worker", { ms: 3000 }, "w1");
      await waitActive(child, "w1");
      assert.equal((await child.call("status", {})).worker, "busy");
      assert.equal(await child.errorCode("test.sleep_worker", { ms: 1 }, "w2"), "busy");
      assert.ok(
        (await child.request("test.sleep", { ms: 1 }, "l1")).result,
        "listing runs beside the worker",
      );
      await child.request("operation.cancel", { request_id: "w1" });
      assert.equal((await first).error?.code, "operation_cancelled");
      assert.equal((await child.call("status", {})).worker, "idle");
      // Nothing was queued: w2 never runs later.
      assert.equal(child.frames.filter((f) => f.id === "w2").length, 1);
    },
  },
  {
    id: "base.init.before-initialize",
    tier: "MUST",
    clause: `${INIT}: "The first request other than status/shutdown; anything else before it is not_initialized"`,
    title: "requests before initialize are not_initialized; status answers uninitialized",
    async run(ctx) {
      const child = ctx.spawn();
      assert.equal((await child.call("status", {})).state, "uninitialized");
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "x" }),
        "not_initialized",
      );
      assert.equal(await child.errorCode("session.list", {}), "not_initialized");
      assert.ok((await child.initialize(["operation.cancel"])).result);
      assert.equal((await child.call("status", {})).state, "ready");
    },
  },
  {
    id: "base.init.twice",
    tier: "MUST",
    clause: `${INIT}: "a second successful initialize is already_initialized"`,
    title: "a second initialize is already_initialized",
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      assert.equal(await child.errorCode("initialize", initParams([])), "already_initialized");
    },
  },
  {
    id: "base.init.protocol-version",
    tier: "MUST",
    clause: `${INIT}: "protocol_version other than 1: unsupported_protocol_version"`,
    title: "protocol version 2 is refused and the child stays uninitialized",
    async run(ctx) {
      const child = ctx.spawn();
      assert.equal(
        await child.errorCode("initialize", initParams([], 2)),
        "unsupported_protocol_version",
      );
      assert.equal((await child.call("status", {})).state, "uninitialized");
    },
  },
  {
    id: "base.init.unknown-capability",
    tier: "MUST",
    clause: `${INIT}: "An unknown name: unsupported_capability, and the child stays uninitialized (the client may retry with another ID). Duplicates: invalid_params."`,
    title:
      "an unknown capability fails initialize and a retry succeeds; duplicates are invalid_params",
    async run(ctx) {
      const child = ctx.spawn();
      assert.equal(
        await child.errorCode("initialize", initParams(["session.teleport"])),
        "unsupported_capability",
      );
      assert.equal((await child.call("status", {})).state, "uninitialized");
      assert.equal(
        await child.errorCode("initialize", initParams(["operation.cancel", "operation.cancel"])),
        "invalid_params",
      );
      assert.equal((await child.call("status", {})).state, "uninitialized");
      const init = await child.initialize(["operation.cancel"]);
      assert.deepEqual(init.result?.capabilities, ["operation.cancel"]);
    },
  },
  {
    id: "base.init.result-shape",
    tier: "MUST",
    clause: `${INIT}: "limits never depends on what was negotiated"; "extensions holds a key only for a negotiated extension that has parameters ... else {}"`,
    title:
      "initialize answers the constant limits and {} extensions when only operation.cancel is negotiated",
    async run(ctx) {
      const child = ctx.spawn();
      const init = await child.initialize(["operation.cancel"]);
      assert.deepEqual(init.result, {
        protocol_version: 1,
        server: init.result?.server,
        capabilities: ["operation.cancel"],
        limits: {
          frame_bytes: 1048576,
          child_requests: 4096,
          active_requests: 16,
          discovery_sessions: 256,
          history_bytes: 8388608,
          page_entries: 100,
          page_bytes: 32768,
          cleanup_ms: 2000,
        },
        extensions: {},
      });
    },
  },
  {
    id: "base.init.unnegotiated-method",
    tier: "MUST",
    clause: `${INIT}: "Calling a method whose capability was not negotiated: unsupported_capability."`,
    title: "a method whose capability was not negotiated is unsupported_capability",
    async run(ctx) {
      const child = await ctx.ready([]);
      assert.equal(
        await child.errorCode("operation.cancel", { request_id: "x" }),
        "unsupported_capability",
      );
    },
  },
];

/** Resolves once `status` lists the request as active. */
export async function waitActive(child: TestChild, id: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const status = await child.call("status", {});
    if (status.active_requests.some((r) => r.id === id)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`request ${id} never became active`);
}

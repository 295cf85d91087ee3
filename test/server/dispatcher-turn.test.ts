import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ProtocolError } from "../../src/protocol/codes.js";
import type { TurnEventParams, TurnResult } from "../../src/protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";
import { Dispatcher } from "../../src/server/dispatcher.js";
import type { HandlerTable, RequestContext } from "../../src/server/handler.js";
import { createState } from "../../src/server/state.js";
import { within } from "../helpers/fakes.js";

/**
 * The Dispatcher in memory (an in-process linked pair): turn admission, control handlers and
 * ctx.notify with fake handlers, every frame it writes collected in order.
 */
interface Frame {
  id?: string | null;
  method?: string;
  params?: TurnEventParams;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
}

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const RESULT = (ctx: RequestContext, status: "completed" | "interrupted"): TurnResult =>
  ({
    turn_id: "t-1",
    session_id: "s1",
    status,
    stop_reason: status === "completed" ? "end_turn" : "interrupted",
    error: null,
    usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
    steps: ctx.id.length > 0 ? 1 : 0,
  }) as TurnResult;

const delta = (id: string, seq: number, text = "hi"): TurnEventParams => ({
  request_id: id,
  turn_id: "t-1",
  seq,
  event: { type: "message_delta", item_id: "i1", text },
});

/** A world: a dispatcher whose turn.start waits for `release`, and the frames it wrote. */
function world(extra: HandlerTable = {}) {
  const frames: Frame[] = [];
  const release = deferred<void>();
  const seen: { ctx?: RequestContext; aborted?: boolean } = {};
  const interrupts: string[] = [];
  const handlers: HandlerTable = {
    "session.list": () => ({ sessions: [], notices: [], cursor: null, complete: true }) as never,
    "session.open": () => {
      throw new ProtocolError("session_missing");
    },
    "session.create": () => ({ session: { id: "s1", saved: false } }) as never,
    "model.select": () => ({ selection: { model: null, effort: null } }) as never,
    "turn.start": async (_params, ctx) => {
      seen.ctx = ctx;
      await ctx.notify(delta(ctx.id, 0));
      await Promise.race([
        release.promise,
        new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true })),
      ]);
      seen.aborted = ctx.signal.aborted;
      await ctx.notify(delta(ctx.id, 1, "bye"));
      return RESULT(ctx, ctx.signal.aborted ? "interrupted" : "completed");
    },
    "turn.interrupt": (params) => {
      if (params.request_id !== seen.ctx?.id) throw new ProtocolError("turn_missing");
      interrupts.push(params.request_id);
      return { state: "interrupting", request_id: params.request_id };
    },
    "turn.approve": () => {
      throw new ProtocolError("approval_missing");
    },
    "approval.rules": () => ({ file: "absent", rules: [] }),
    ...extra,
  };
  let stopped = false;
  const dispatcher = new Dispatcher({
    state: createState("/w", "/h", {}),
    handlers,
    write: (line) => {
      frames.push(JSON.parse(line) as Frame);
      return Promise.resolve();
    },
    onStopped: () => {
      stopped = true;
    },
  });
  let next = 0;
  const send = (method: string, params: object = {}, id = `r${++next}`) => {
    dispatcher.handle({
      kind: "frame",
      bytes: new TextEncoder().encode(JSON.stringify({ id, method, params })),
    });
    return id;
  };
  // The latest answer to the ID (a duplicate's refusal comes after the original's answer).
  const answer = (id: string) =>
    frames.findLast((f) => f.id === id && ("result" in f || "error" in f));
  const settled = async (id: string) => {
    for (let i = 0; i < 2000 && !answer(id); i += 1) await new Promise((r) => setImmediate(r));
    return answer(id) as Frame;
  };
  const init = (capabilities: string[]) =>
    send("initialize", {
      protocol_version: 1,
      client: { name: "t", version: "1" },
      required_capabilities: capabilities,
    });
  return {
    frames,
    send,
    answer,
    settled,
    init,
    release,
    seen,
    interrupts,
    dispatcher,
    stopped: () => stopped,
  };
}

describe("turn admission in the Dispatcher", () => {
  test("turn is refused at initialize while any turn method lacks a handler", () => {
    const w = world({ "turn.approve": undefined });
    const id = w.init(["turn"]);
    assert.equal(w.answer(id)?.error?.code, "unsupported_capability");
  });

  test("negotiated, turn advertises exactly its parameter object", () => {
    const w = world();
    const id = w.init(["turn", "session.list"]);
    const result = w.answer(id)?.result as { capabilities: string[]; extensions: object };
    assert.deepEqual(result.capabilities, ["session.list", "turn"]);
    // Fake handlers probe no sandbox: `sandbox` keeps its default, null.
    assert.deepEqual(result.extensions, { turn: { ...TURN_EXTENSION, sandbox: null } });
  });

  test("a running turn holds the worker; listings, status and control methods answer beside it", async () => {
    const w = world();
    w.init([
      "turn",
      "session.list",
      "session.open",
      "session.create",
      "model.select",
      "operation.cancel",
    ]);
    const turn = w.send("turn.start", { input: "hello" });
    for (const [method, params] of [
      ["model.select", { model: "a/b", effort: null, catalog_revision: "r" }],
      ["session.open", { id: "s1" }],
      ["session.create", {}],
      ["turn.start", { input: "again" }],
    ] as const) {
      const id = w.send(method, params);
      assert.equal((await w.settled(id)).error?.code, "busy", method);
    }
    assert.ok((await w.settled(w.send("session.list"))).result, "listing answered beside it");
    const status = (await w.settled(w.send("status"))).result as {
      worker: string;
      active_requests: { id: string; method: string }[];
    };
    assert.equal(status.worker, "busy");
    assert.deepEqual(status.active_requests, [{ id: turn, method: "turn.start" }]);
    // operation.cancel never reaches a turn: operation_missing, and the turn goes on.
    const cancel = w.send("operation.cancel", { request_id: turn });
    assert.equal(w.answer(cancel)?.error?.code, "operation_missing", "answered at once");
    // Control methods are answered synchronously by their own handlers.
    const interrupt = w.send("turn.interrupt", { request_id: turn });
    assert.deepEqual(w.answer(interrupt)?.result, { state: "interrupting", request_id: turn });
    const missing = w.send("turn.interrupt", { request_id: "nope" });
    assert.equal(w.answer(missing)?.error?.code, "turn_missing");
    const approve = w.send("turn.approve", { approval_id: "a1", decision: "deny" });
    assert.equal(w.answer(approve)?.error?.code, "approval_missing");
    assert.equal(
      w.answer(w.send("turn.interrupt", { request_id: turn }, interrupt))?.error?.code,
      "duplicate_request_id",
    );
    assert.equal(w.seen.ctx?.signal.aborted, false);
    w.release.resolve();
    const done = await within(w.settled(turn));
    assert.equal((done.result as TurnResult).status, "completed");
    // Every event before the result, in order.
    const mine = w.frames.filter((f) => f.method === "turn.event" || f.id === turn);
    assert.deepEqual(
      mine.map((f) => (f.method ? f.params?.seq : "result")),
      [0, 1, "result"],
    );
    assert.ok((await w.settled(w.send("session.create"))).result, "the worker is free again");
  });

  test("control methods count toward the lifetime and are exempt from the active bound", async () => {
    const w = world({
      "session.list": () => new Promise(() => {}) as never,
    });
    w.init(["turn", "session.list"]);
    const turn = w.send("turn.start", { input: "x" });
    for (let i = 0; i < 15; i += 1) w.send("session.list");
    while (!w.seen.ctx) await new Promise((r) => setImmediate(r));
    assert.equal(w.answer(w.send("session.list"))?.error?.code, "busy");
    const interrupt = w.send("turn.interrupt", { request_id: turn });
    assert.ok(w.answer(interrupt)?.result, "control answered at the active bound");
    const status = (await w.settled(w.send("status"))).result as { requests_left: number };
    assert.equal(status.requests_left, 4096 - 19);
  });

  test("shutdown aborts the turn's signal and still writes the turn's own result first", async () => {
    const w = world();
    w.init(["turn"]);
    const turn = w.send("turn.start", { input: "x" });
    await within(
      (async () => {
        while (!w.seen.ctx) await new Promise((r) => setImmediate(r));
      })(),
    );
    const stop = w.send("shutdown");
    const stopped = await within(w.settled(stop));
    assert.deepEqual(stopped.result, { state: "stopped" });
    assert.equal(w.seen.aborted, true);
    const result = w.answer(turn)?.result as TurnResult;
    assert.equal(result.status, "interrupted", "a turn never answers operation_cancelled");
    const order = w.frames.map((f) => f.id ?? f.method);
    assert.ok(order.indexOf(turn) < order.indexOf(stop));
  });

  test("notify refuses, writing nothing, without the turn capability", async () => {
    let refusal: unknown = null;
    const w = world({
      "session.list": async (_params, ctx) => {
        refusal = await ctx.notify(delta(ctx.id, 0)).catch((error: unknown) => error);
        return { sessions: [], notices: [], cursor: null, complete: true } as never;
      },
    });
    w.init(["session.list"]);
    await within(w.settled(w.send("session.list")));
    assert.ok(refusal instanceof Error && /turn capability/.test(refusal.message));
    assert.ok(!w.frames.some((f) => f.method));
  });

  test("notify refuses bad params, another request's ID, an oversized delta and late events", async () => {
    const outcomes: string[] = [];
    let late: RequestContext | null = null;
    const attempt = (promise: Promise<void>) =>
      promise.then(
        () => "written",
        (error: Error) => error.message,
      );
    const w = world({
      "turn.start": async (_params, ctx) => {
        late = ctx;
        const bad = { ...delta(ctx.id, 0), event: { type: "nonsense" } } as never;
        outcomes.push(await attempt(ctx.notify(bad)));
        outcomes.push(await attempt(ctx.notify(delta("someone-else", 0))));
        const big = "x".repeat(TURN_EXTENSION.event_bytes + 1);
        outcomes.push(await attempt(ctx.notify(delta(ctx.id, 0, big))));
        const edge = "x".repeat(TURN_EXTENSION.event_bytes);
        outcomes.push(await attempt(ctx.notify(delta(ctx.id, 0, edge))));
        return RESULT(ctx, "completed");
      },
    });
    w.init(["turn"]);
    await within(w.settled(w.send("turn.start", { input: "x" })));
    assert.match(outcomes[0] as string, /outside the notification schema/);
    assert.match(outcomes[1] as string, /another request/);
    assert.match(outcomes[2] as string, /outside the notification schema/);
    assert.equal(outcomes[3], "written", "a delta of exactly event_bytes is written");
    assert.equal(w.frames.filter((f) => f.method === "turn.event").length, 1);
    const after = await attempt((late as unknown as RequestContext).notify(delta("r2", 1)));
    assert.match(after, /after its answer/);
  });

  test("a turn handler's ProtocolError is its refusal, sent as is", async () => {
    const w = world({
      "turn.start": () => {
        throw new ProtocolError("attachment_required");
      },
    });
    w.init(["turn"]);
    const id = w.send("turn.start", { input: "x" });
    assert.equal((await within(w.settled(id))).error?.code, "attachment_required");
  });

  test("an asynchronous control handler is a bug: internal_error, nothing else", () => {
    const w = world({
      "turn.approve": (() => Promise.resolve({})) as never,
    });
    w.init(["turn"]);
    const id = w.send("turn.approve", { approval_id: "a", decision: "deny" });
    assert.equal(w.answer(id)?.error?.code, "internal_error");
  });
});

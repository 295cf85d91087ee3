import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import {
  AgentClient,
  ClientError,
  isRemote,
  type TurnEventParams,
} from "../../src/client/index.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { entry, pause, SCRIPTED_CHILD, scriptedDir, until, within } from "../helpers/fakes.js";

/**
 * client.turn against the scripted child: the real Dispatcher with scripted turns
 * (test/fixtures/scripted-turns.ts), so admission, notifications and interrupt are the product's.
 */
describe("client.turn against the scripted child", () => {
  let box: Sandbox;
  let dir: string;
  const frames: string[] = [];
  const started: AgentClient[] = [];
  beforeEach(() => {
    box = sandbox();
    frames.length = 0;
    dir = scriptedDir(box.root, { "sessions.json": { sessions: [entry("s1")] } });
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((c) => within(c.close())));
    box.cleanup();
  });

  const start = async (capabilities = ["turn", "session.open", "operation.cancel"] as const) => {
    const client = await within(
      AgentClient.spawn({
        cwd: box.workspace,
        command: SCRIPTED_CHILD,
        env: { PATH: process.env.PATH, FAKE_DIR: dir },
        capabilities,
        trace: (direction, line) => frames.push(`${direction} ${line}`),
      }),
    );
    started.push(client);
    return client;
  };
  const attached = async () => {
    const client = await start();
    await within(client.open("s1"));
    return client;
  };
  const sent = (method: string) =>
    frames.filter((f) => f.startsWith("out ") && f.includes(`"method":"${method}"`)).length;
  const script = (...steps: unknown[]) => JSON.stringify({ steps });

  it("negotiates turn with its parameter object and streams events by seq before the result", async () => {
    const client = await attached();
    assert.equal(client.extensions.turn?.event_bytes, 65_536);
    const events: TurnEventParams[] = [];
    const result = await within(
      client.turn(script({ text: "Hello, world", pieces: 4 }), { onEvent: (e) => events.push(e) }),
    );
    assert.equal(result.status, "completed");
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
    );
    assert.equal(events[0]?.event.type, "turn_started");
    const deltas = events.flatMap((e) => (e.event.type === "message_delta" ? [e.event.text] : []));
    const done = events.find((e) => e.event.type === "message_done")?.event;
    assert.equal(deltas.length, 4);
    assert.equal(done?.type === "message_done" && done.text, deltas.join(""));
    assert.ok(events.every((e) => e.turn_id === result.turn_id));
  });

  it("answers each approval through onApproval with turn.approve", async () => {
    const client = await attached();
    const asked: string[] = [];
    const decisions = ["allow_once", "deny"] as const;
    const events: TurnEventParams[] = [];
    const result = await within(
      client.turn(script({ approval: "edit" }, { approval: "command" }), {
        permissions: "ask",
        onEvent: (e) => events.push(e),
        onApproval: async (request) => {
          asked.push(request.kind);
          await pause(20);
          return decisions[asked.length - 1] ?? "deny";
        },
      }),
    );
    assert.equal(result.status, "completed");
    assert.deepEqual(asked, ["edit", "command"]);
    assert.equal(sent("turn.approve"), 2);
    const resolved = events.flatMap((e) =>
      e.event.type === "approval_resolved" ? [e.event.decision] : [],
    );
    assert.deepEqual(resolved, ["allow_once", "deny"]);
    const tools = events.flatMap((e) => (e.event.type === "tool_done" ? [e.event.status] : []));
    assert.deepEqual(tools, ["completed", "denied"]);
  });

  it("aborting the signal sends turn.interrupt (never operation.cancel); the turn still resolves", async () => {
    const client = await attached();
    const controller = new AbortController();
    const events: TurnEventParams[] = [];
    const running = client.turn(script({ approval: "command" }, { text: "never" }), {
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.event.type === "approval_requested") controller.abort();
      },
      // Never decides: the interrupt settles the approval as cancelled.
      onApproval: () => new Promise(() => {}),
    });
    const result = await within(running);
    assert.equal(result.status, "interrupted");
    assert.equal(result.stop_reason, "interrupted");
    assert.equal(sent("turn.interrupt"), 1);
    assert.equal(sent("operation.cancel"), 0);
    const resolved = events.find((e) => e.event.type === "approval_resolved")?.event;
    assert.equal(resolved?.type === "approval_resolved" && resolved.decision, "cancelled");
    assert.ok(!events.some((e) => e.event.type === "message_delta"));
  });

  it("while a turn runs: busy for the worker's methods, status beside it, operation.cancel is operation_missing", async () => {
    const client = await attached();
    let turnId = "";
    const running = client.call(
      "turn.start",
      { input: script({ wait_ms: 30_000 }) },
      {
        onSent: (id) => {
          turnId = id;
        },
      },
    );
    await until(async () => (await client.call("status", {})).worker === "busy", "the turn runs");
    const status = await within(client.call("status", {}));
    assert.equal(status.worker, "busy");
    assert.deepEqual(status.active_requests, [{ id: turnId, method: "turn.start" }]);
    await assert.rejects(within(client.open("s1")), (e: unknown) => isRemote(e, "busy"));
    await assert.rejects(within(client.turn("again")), (e: unknown) => isRemote(e, "busy"));
    await assert.rejects(
      within(client.call("operation.cancel", { request_id: turnId })),
      (e: unknown) => isRemote(e, "operation_missing"),
    );
    assert.deepEqual(await within(client.call("turn.interrupt", { request_id: turnId })), {
      state: "interrupting",
      request_id: turnId,
    });
    assert.equal((await within(running)).status, "interrupted");
    await assert.rejects(
      within(client.call("turn.interrupt", { request_id: turnId })),
      (e: unknown) => isRemote(e, "turn_missing"),
    );
  });

  it("refusals come before anything is written; without turn nothing is callable", async () => {
    const client = await start();
    const events: TurnEventParams[] = [];
    await assert.rejects(
      within(client.turn("hi", { onEvent: (e) => events.push(e) })),
      (e: unknown) => isRemote(e, "attachment_required"),
    );
    assert.deepEqual(events, []);
    const plain = await start(["session.open"] as never);
    await assert.rejects(
      plain.turn("hi"),
      (e: unknown) => e instanceof ClientError && e.code === "not_negotiated",
    );
  });

  it("an already aborted signal sends nothing", async () => {
    const client = await attached();
    await assert.rejects(
      client.turn("hi", { signal: AbortSignal.abort() }),
      (e: unknown) => e instanceof ClientError && e.code === "aborted",
    );
    assert.equal(sent("turn.start"), 0);
  });
});

/**
 * Subagents through the real child (docs/turns.md, "Subagents"), against a loopback model: the
 * subagent's conversation is fresh (no parent message) and carries its prompt; its final message
 * is the parent's tool result under the call's ID; its events arrive inside `subagent_event`;
 * its history is the derived file, never listed; three run at once; an interrupt stops all.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import {
  answer,
  call,
  custom,
  held,
  type Script,
  text,
  toolCalls,
} from "../fixtures/chat-completions-server.js";
import { bodiesOf, type Loose, resultText, runApproving } from "./tool-turns.js";
import {
  finishTurn,
  runTurn,
  startTurn,
  TURN_CAPS,
  type TurnWorld,
  turnWorld,
} from "./turn-harness.js";

const SUB_CAPS = [...TURN_CAPS, "subagents", "plans"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The user message of a request (the last one). */
const lastUser = (body: Loose) =>
  (body.messages as Loose[]).filter((m) => m.role === "user").at(-1)?.content;

/** Answers a subagent's call with "answer to <its prompt>". */
const echo: Script = custom(async (exchange) => {
  const prompt = lastUser(exchange.request.body);
  await text(`answer to ${prompt}`)(exchange);
});

function derivedFiles(w: TurnWorld, sessionId: string): string[] {
  return readdirSync(join(w.box.home, "sessions")).filter(
    (name) =>
      name.startsWith(`${sessionId}.`) && name.endsWith(".jsonl") && name !== `${sessionId}.jsonl`,
  );
}

function recordsIn(w: TurnWorld, name: string): Loose[] {
  const text = readFileSync(join(w.box.home, "sessions", name), "utf8");
  assert.ok(text.endsWith("\n"), "the derived history ends with a whole record");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("subagents", () => {
  test("one subagent: a fresh conversation with its prompt; its answer is the call's result", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([
        call("agent", { description: "Map the code", prompt: "List the parsers" }, "call_a"),
      ]),
      echo,
      text("The helper says it is mapped."),
    );
    const { result, events } = await runTurn(w.child, "Map the code with a helper", "ask");
    assert.equal(result.status, "completed");
    assert.equal(w.server.requests.length, 3);
    const sub = w.server.requests[1]?.body;
    const users = (sub.messages as Loose[]).filter((m) => m.role === "user");
    assert.deepEqual(
      users.map((m) => m.content),
      ["List the parsers"],
      "a fresh context",
    );
    assert.ok(
      !JSON.stringify(sub.messages).includes("Map the code with a helper"),
      "no parent message reaches the subagent",
    );
    const offered = (sub.tools as Loose[]).map((t) => t.function.name);
    assert.ok(!offered.includes("agent") && !offered.includes("update_plan"), "depth 1, no plan");
    assert.ok(!offered.includes("write_file"), "read_only by default");
    assert.equal(resultText(w.server.requests[2], "call_a"), "answer to List the parsers");
    const wrapped = bodiesOf(events, "subagent_event");
    const [agentCall] = bodiesOf(events, "tool_call");
    assert.equal(agentCall?.tool, "agent");
    assert.equal(agentCall?.title, "Agent: Map the code");
    assert.ok(wrapped.length > 0);
    assert.ok(
      wrapped.every((e) => e.item_id === agentCall.item_id && e.subagent_id === agentCall.item_id),
    );
    const inner = wrapped.map((e) => e.event.type);
    assert.equal(inner[0], "turn_started");
    assert.ok(inner.includes("message_done") && inner.includes("usage"));
    // The parent's usage events are its own calls; the result sums the subagent's too.
    const own = bodiesOf(events, "usage").reduce((n, u) => n + u.input_tokens, 0);
    const subs = wrapped
      .filter((e) => e.event.type === "usage")
      .reduce((n, e) => n + e.event.input_tokens, 0);
    assert.ok(subs > 0);
    assert.equal(result.usage.input_tokens, own + subs);
    const [file] = derivedFiles(w, session.id);
    assert.equal(file, `${session.id}.${agentCall.item_id}.jsonl`);
    const records = recordsIn(w, file as string);
    assert.deepEqual(
      records.map((r) => r.type),
      ["session_meta", "turn_start", "user_message", "assistant_message", "turn_end"],
    );
    assert.equal(records[1].permissions, "read_only");
    const listed = await w.child.call("session.list", {});
    assert.deepEqual(
      listed.sessions.map((s: Loose) => s.id),
      [session.id],
      "the derived history is not listed",
    );
  });

  test("three subagents of one reply run at once; results pair with their call IDs", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    await w.child.call("session.create", {});
    let release: () => void = () => {};
    const allThere = new Promise<void>((resolve) => {
      release = resolve;
    });
    const overlapping: Script = custom(async (exchange) => {
      const prompt = lastUser(exchange.request.body);
      // Held until all three subagents' first calls are in: they overlap, or the test times out.
      if (w.server.requests.length >= 4) release();
      await held(answer({ text: `answer to ${prompt}` }), 1, allThere)(exchange);
    });
    w.server.reply(
      toolCalls(
        ["one", "two", "three"].map((n) =>
          call("agent", { description: `Look ${n}`, prompt: `task ${n}` }, `call_${n}`),
        ),
      ),
      overlapping,
      overlapping,
      overlapping,
      text("All three answered."),
    );
    const { result } = await runTurn(w.child, "Three helpers", "ask");
    assert.equal(result.status, "completed");
    const last = w.server.requests.at(-1);
    for (const n of ["one", "two", "three"])
      assert.equal(resultText(last, `call_${n}`), `answer to task ${n}`);
  });

  test("permissions: more than the parent's is a tool error; ask is allowed under full_access", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([
        call("agent", { description: "x", prompt: "p", permissions: "full_access" }, "call_x"),
      ]),
      text("ok"),
    );
    const { events } = await runTurn(w.child, "Try", "ask");
    assert.deepEqual(
      bodiesOf(events, "tool_done").map((d) => d.status),
      ["failed"],
    );
    assert.match(resultText(w.server.requests[1], "call_x"), /never more/);
    assert.equal(w.server.requests.length, 2, "no subagent ran");
  });

  test("interrupt during three running subagents: all stop, histories whole, parent interrupted", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    const never = new Promise<void>(() => {});
    const hanging: Script = held(answer({ text: "never finished" }), 1, never);
    w.server.reply(
      toolCalls(
        ["one", "two", "three"].map((n) =>
          call("agent", { description: n, prompt: `task ${n}` }, `call_${n}`),
        ),
      ),
      hanging,
      hanging,
      hanging,
    );
    const turn = startTurn(w.child, "Three helpers", "ask");
    // All three subagents are calling the model (and held there).
    while (w.server.requests.length < 4) await new Promise((r) => setTimeout(r, 50));
    await w.child.call("turn.interrupt", { request_id: turn.id });
    const { result } = await finishTurn(w.child, turn);
    assert.equal(result.status, "interrupted");
    const files = derivedFiles(w, session.id);
    assert.equal(files.length, 3);
    for (const file of files) {
      const records = recordsIn(w, file);
      assert.equal(records.at(-1).type, "turn_end");
      assert.equal(records.at(-1).status, "interrupted");
    }
    assert.ok(existsSync(join(w.box.home, "sessions", `${session.id}.jsonl`)));
  });
});

describe("subagents: approvals", () => {
  test("a subagent's write under ask asks in the parent's stream, naming it; denied, it is told", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([
        call("agent", { description: "Write", prompt: "write it", permissions: "ask" }, "call_w"),
      ]),
      toolCalls([call("write_file", { path: "note.txt", content: "hi\n" }, "call_inner")]),
      text("I was denied."),
      text("The helper could not write."),
    );
    const run = await runApproving(w.child, "Delegate a write", "ask", ["deny"]);
    assert.equal(run.result.status, "completed");
    const [asked] = run.approvals;
    const [agentCall] = bodiesOf(run.events, "tool_call");
    assert.equal(asked.subagent_id, agentCall.item_id, "the approval names the subagent");
    assert.equal(asked.path, "note.txt");
    assert.ok(!existsSync(join(w.box.workspace, "note.txt")), "nothing written");
    assert.equal(resultText(w.server.requests[2], "call_inner"), "denied by the user");
    assert.equal(resultText(w.server.requests[3], "call_w"), "I was denied.");
  });

  test("the parent's own approval says subagent_id null", async () => {
    world = await turnWorld({ capabilities: SUB_CAPS });
    const w = world;
    await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([call("write_file", { path: "own.txt", content: "x\n" }, "call_own")]),
      text("ok"),
    );
    const run = await runApproving(w.child, "Write", "ask", ["deny"]);
    assert.equal(run.approvals[0].subagent_id, null);
  });
});

describe("subagents: revert", () => {
  test("a revert of the parent's turn undoes the subagent's edit", async () => {
    world = await turnWorld({ capabilities: [...SUB_CAPS, "turn.revert"] });
    const w = world;
    writeFileSync(join(w.box.workspace, "kept.txt"), "before\n");
    const { session } = await w.child.call("session.create", {});
    w.server.reply(
      toolCalls([
        call("agent", { description: "Edit", prompt: "edit it", permissions: "full_access" }, "c"),
      ]),
      toolCalls([call("write_file", { path: "kept.txt", content: "after\n" }, "c_inner")]),
      text("Edited."),
      text("The helper edited it."),
    );
    const run = await runApproving(w.child, "Delegate an edit", "full_access", []);
    assert.equal(run.result.status, "completed");
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "after\n");
    const done: Loose = await w.child.request(
      "turn.revert",
      { session_id: session.id, turn_id: run.result.turn_id },
      undefined,
      60_000,
    );
    assert.equal(done.result?.state, "reverted", JSON.stringify(done.error));
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "before\n");
  });
});

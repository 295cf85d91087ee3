/**
 * `session.subagent_history` beyond the kit's cases (docs/local-agent-protocol.md): an archived
 * session's subagents (with `session.manage` only), a lazy handle, an unsafe or foreign derived
 * file, and reads while the subagent still runs; no refusal carries a path.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, call, held, text, toolCalls } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import { bodiesOf, type Loose } from "./tool-turns.js";
import { waitUntil } from "./turn-control-fixtures.js";
import {
  finishTurn,
  runTurn,
  startTurn,
  TURN_CAPS,
  type TurnWorld,
  turnWorld,
} from "./turn-harness.js";

const CAPS = [...TURN_CAPS, "subagents", "session.manage"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function oneSubagent(w: TurnWorld): Promise<{ sessionId: string; sub: string }> {
  const { session } = await w.child.call("session.create", {});
  w.server.reply(
    toolCalls([call("agent", { description: "Look", prompt: "look around" }, "c_1")]),
    text("Looked."),
    text("Done."),
  );
  const { events } = await runTurn(w.child, "Delegate", "ask");
  const [agentCall] = bodiesOf(events, "tool_call");
  return { sessionId: session.id, sub: agentCall.item_id };
}

const read = (w: TurnWorld, id: string, sub: string) =>
  w.child.request("session.subagent_history", { id, subagent_id: sub });

function derivedPath(w: TurnWorld, id: string, sub: string): string {
  return join(w.box.home, "sessions", `${id}.${sub}.jsonl`);
}

function assertRefused(frame: Loose, code: string, w: TurnWorld): void {
  assert.equal(frame.error?.code, code, JSON.stringify(frame));
  const said = JSON.stringify(frame.error);
  for (const path of [w.box.home, w.box.workspace]) assert.ok(!said.includes(path));
}

describe("session.subagent_history", () => {
  test("an archived session's subagent reads from the archive, with session.manage", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const { sessionId, sub } = await oneSubagent(w);
    const before = (await read(w, sessionId, sub)).result as Loose;
    await w.child.call("session.archive", { id: sessionId });
    const after = (await read(w, sessionId, sub)).result as Loose;
    assert.deepEqual(after.events, before.events, "the same records, from the archive");
    // A child without session.manage does not look in the archive.
    await w.child.close();
    w.child = await startReady(w.box, [...TURN_CAPS, "subagents"], { testMethods: true });
    assertRefused(await read(w, sessionId, sub), "session_missing", w);
  });

  test("a lazy handle, an unsafe derived file and a foreign one are refused without a path", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const { sessionId, sub } = await oneSubagent(w);
    const path = derivedPath(w, sessionId, sub);
    const kept = readFileSync(path, "utf8");
    // A foreign workspace in its records.
    writeFileSync(path, kept.replaceAll(JSON.stringify(w.box.workspace), '"/elsewhere"'));
    assertRefused(await read(w, sessionId, sub), "cwd_mismatch", w);
    // A bad line in the middle.
    const lines = kept.trimEnd().split("\n");
    writeFileSync(path, [lines[0], "{not json", ...lines.slice(1)].join("\n").concat("\n"));
    assertRefused(await read(w, sessionId, sub), "session_invalid", w);
    // A symlink to a valid copy is never followed.
    const elsewhere = join(w.box.root, "copy.jsonl");
    writeFileSync(elsewhere, kept);
    rmSync(path);
    symlinkSync(elsewhere, path);
    assertRefused(await read(w, sessionId, sub), "session_invalid", w);
    // The attached lazy handle has no saved history, so no subagent.
    const { session: lazy } = await w.child.call("session.create", {});
    const refused = await read(w, lazy.id, sub);
    assertRefused(refused, "session_missing", w);
    assert.equal((refused as Loose).error.message, "No saved session has that ID.");
    const none = await read(w, sessionId, "t-none.1");
    assert.equal((none as Loose).error.message, "That session has no subagent with that ID.");
  });

  test("a subagent's record over a page: a stub, read whole by session.record with subagent_id", async () => {
    world = await turnWorld({ capabilities: CAPS }); // TURN_CAPS include session.record
    const w = world;
    const { session } = await w.child.call("session.create", {});
    const prompt = `look at ${"é".repeat(30_000)}`; // 60 KB of UTF-8: over a page
    w.server.reply(
      toolCalls([call("agent", { description: "Look", prompt }, "c_1")]),
      text("Looked."),
      text("Done."),
    );
    const { events } = await runTurn(w.child, "Delegate", "ask");
    const sub = bodiesOf(events, "tool_call")[0].item_id as string;
    const page = (await read(w, session.id, sub)).result as Loose;
    const stub = page.events.find((r: Loose) => r.oversize === true);
    assert.equal(stub?.type, "user_message", JSON.stringify(page.events));
    const line = readFileSync(derivedPath(w, session.id, sub), "utf8").split("\n")[stub.index];
    let textRead = "";
    let cursor: string | null | undefined;
    do {
      const params = { id: session.id, subagent_id: sub, index: stub.index, cursor };
      const chunk = (await w.child.request("session.record", params)).result as Loose;
      textRead += chunk.text;
      cursor = chunk.cursor;
    } while (cursor);
    assert.equal(textRead, line, "the derived file's line, byte for byte");
    assert.equal(JSON.parse(textRead).text, prompt);
    // The session's own record at that index is another one: the two are never mixed up.
    const own = await w.child.request("session.record", { id: session.id, index: stub.index });
    assert.notEqual((own.result as Loose | undefined)?.text, line);
    // No such subagent: session_missing, naming no path.
    const none = { id: session.id, subagent_id: "t-none.1", index: 0 };
    assertRefused(await w.child.request("session.record", none), "session_missing", w);
    // Without `subagents` the param does not exist.
    await w.child.close();
    w.child = await startReady(w.box, TURN_CAPS, { testMethods: true });
    const asked = { id: session.id, subagent_id: sub, index: stub.index };
    assertRefused(await w.child.request("session.record", asked), "unsupported_capability", w);
  });

  test("while the subagent runs its history reads up to now; a cursor after an append is stale", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    const { session } = await w.child.call("session.create", {});
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Each of the prompt and the first reply about 20 KB: two pages while it waits.
    w.server.reply(
      toolCalls([call("agent", { description: "Look", prompt: "x".repeat(20_000) }, "c_1")]),
      answer({ text: "y".repeat(20_000), calls: [call("list_dir", { path: "." }, "c_in")] }),
      held(answer({ text: "Looked." }), 1, gate),
      text("Done."),
    );
    const turn = startTurn(w.child, "Delegate", "ask");
    const wrapped = await turn.event("subagent_event");
    const sub = (wrapped.event as Loose).subagent_id as string;
    await waitUntil(() => w.server.requests.length >= 3, "the subagent's second model call");
    const first = (await read(w, session.id, sub)).result as Loose;
    assert.deepEqual(
      first.events.map((r: Loose) => r.type),
      ["session_meta", "turn_start", "user_message"],
    );
    const second = (
      await w.child.request("session.subagent_history", {
        id: session.id,
        subagent_id: sub,
        cursor: first.cursor,
      })
    ).result as Loose;
    assert.deepEqual(
      second.events.map((r: Loose) => r.type),
      ["assistant_message", "tool_call", "tool_result"],
      "up to now: the subagent waits for its model",
    );
    assert.equal(second.complete, true);
    const again = (await read(w, session.id, sub)).result as Loose;
    assert.equal(again.complete, false);
    release();
    const { result } = await finishTurn(w.child, turn);
    assert.equal(result.status, "completed");
    const stale = await w.child.request("session.subagent_history", {
      id: session.id,
      subagent_id: sub,
      cursor: again.cursor,
    });
    assert.equal(stale.error?.code, "stale_revision", "the history grew since that page");
  });
});

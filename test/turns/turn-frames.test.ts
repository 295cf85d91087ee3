/**
 * What every frame and record of a turn is, whatever the texts in it: JSON a strict UTF-8
 * decoder accepts (no lone surrogate: a cut never splits a surrogate pair, and one that comes
 * in from outside becomes U+FFFD), and, but for `message_done`, within `event_bytes` as a whole
 * frame, however much its JSON escaping grows a text (a control character is six bytes).
 * The turn driver's invariants check both for every frame of every turn run here.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { readHistory } from "./history-file.js";
import { bodiesOf, resultText, runCallsTurn } from "./tool-turns.js";
import { runTurn, type TurnWorld, turnWorld } from "./turn-harness.js";

const EVENT_BYTES = 65_536;
const EMOJI = "\u{1F389}"; // two UTF-16 units: a cut by units can split it
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function freshWorld(): Promise<{ w: TurnWorld; sessionId: string }> {
  world = await turnWorld();
  const { session } = await world.child.call("session.create", {});
  return { w: world, sessionId: session.id };
}

/** The size of the frame that carried an event body, as the child wrote it. */
function frameBytesOf(w: TurnWorld, body: unknown): number {
  const frame = w.child.frames.find(
    (f) => (f as unknown as { params?: { event?: unknown } }).params?.event === body,
  );
  assert.ok(frame, "the event's frame");
  return Buffer.byteLength(w.child.lineOf(frame));
}

/** Every record on disk, checked strictly by readHistory (UTF-8, no lone surrogate escape). */
function records(w: TurnWorld, sessionId: string) {
  return readHistory(w.box, sessionId).records as Record<string, unknown>[];
}

describe("turns: cuts fall between characters", () => {
  test("a shell title cut at 80 characters with an emoji at units 79-80 keeps the whole emoji", async () => {
    const { w, sessionId } = await freshWorld();
    const command = `echo ${"a".repeat(74)}${EMOJI}bbbbbbbbbb`;
    assert.equal(command.indexOf(EMOJI), 79);
    const run = await runCallsTurn(
      w,
      "ask",
      [{ name: "shell", input: { command }, id: "c1" }],
      ["deny"],
    );
    const [call] = bodiesOf(run.events, "tool_call");
    const [asked] = run.approvals;
    for (const title of [call.title, asked.title]) {
      assert.ok(!LONE.test(title), `a lone surrogate in ${JSON.stringify(title)}`);
      assert.equal(title, `Run ${command.slice(0, 79)}${EMOJI}…`);
    }
    records(w, sessionId);
  });

  test("a search line cut at 500 characters with an emoji at units 499-500 keeps the whole emoji", async () => {
    const { w, sessionId } = await freshWorld();
    const line = `needle${"x".repeat(493)}${EMOJI}tail`;
    assert.equal(line.indexOf(EMOJI), 499);
    writeFileSync(join(w.box.workspace, "long.txt"), `${line}\n`);
    await runCallsTurn(w, "read_only", [
      { name: "search", input: { pattern: "needle" }, id: "c1" },
    ]);
    const seen = resultText(w.server.requests[1], "c1");
    assert.ok(!LONE.test(seen), "the model sees no lone surrogate");
    assert.ok(seen.includes(`${line.slice(0, 499)}${EMOJI}…`), seen);
    const result = records(w, sessionId).find((r) => r.type === "tool_result");
    assert.ok(String(result?.output).includes(`${EMOJI}…`));
  });
});

describe("turns: lone surrogates from outside become U+FFFD", () => {
  test("a lone surrogate escape in the model's tool input and in its text deltas", async () => {
    const { w, sessionId } = await freshWorld();
    // JSON.stringify writes the lone halves as escapes, as a JavaScript server would.
    const input = '{"path":"odd.txt","content":"half \\ud83c here"}';
    w.server.reply(
      answer({
        text: ["Writing \ud83c", "now."],
        calls: [{ name: "write_file", input, id: "c1" }],
      }),
    );
    w.server.reply(text(["Done \udf89."]));
    const { result, events } = await runTurn(w.child, "write it", "full_access");
    assert.equal(result.status, "completed");
    assert.equal(readFileSync(join(w.box.workspace, "odd.txt"), "utf8"), "half \uFFFD here");
    const [call] = bodiesOf(events, "tool_call");
    assert.equal(call.input.content, "half \uFFFD here");
    const texts = bodiesOf(events, "message_done").map((e) => e.text);
    assert.deepEqual(texts, ["Writing \uFFFDnow.", "Done \uFFFD."]);
    const saved = records(w, sessionId).find((r) => r.type === "tool_call") as {
      input: { content: string };
    };
    assert.equal(saved.input.content, "half \uFFFD here");
  });

  test("a lone surrogate escape in a client's prompt is recorded as U+FFFD", async () => {
    const { w, sessionId } = await freshWorld();
    w.server.reply(text("Hi."));
    const id = "lone-prompt";
    w.child.send(`{"id":"${id}","method":"turn.start","params":{"input":"hi \\ud83c"}}\n`);
    const done = await w.child.waitFor((f) => f.id === id, 60_000);
    assert.equal((done.result as { status?: string }).status, "completed");
    const user = records(w, sessionId).find((r) => r.type === "user_message");
    assert.equal(user?.text, "hi \uFFFD");
    const sent = w.server.requests[0]?.body.messages.at(-1);
    assert.equal(sent.content, "hi \uFFFD");
  });
});

describe("turns: every event's whole frame is within event_bytes", () => {
  test("a command of 11,000 control characters: approval_requested fits, truncated", async () => {
    const { w } = await freshWorld();
    const command = `printf '${"\u0001".repeat(11_000)}'`;
    const run = await runCallsTurn(
      w,
      "ask",
      [{ name: "shell", input: { command }, id: "c1" }],
      ["deny"],
    );
    const [asked] = run.approvals;
    assert.equal(asked.truncated, true);
    assert.match(asked.command, /\n\[\.\.\. cut to fit the event size\]$/);
    assert.ok(command.startsWith(asked.command.replace(/\n\[\.\.\. cut.*$/, "")));
    const bytes = frameBytesOf(w, asked);
    assert.ok(bytes <= EVENT_BYTES, `approval_requested of ${bytes} bytes`);
    // The cut takes only what the frame is over by: the event is nearly full.
    assert.ok(bytes > EVENT_BYTES - 1024, `approval_requested of only ${bytes} bytes`);
    const [call] = bodiesOf(run.events, "tool_call");
    assert.ok(frameBytesOf(w, call) <= EVENT_BYTES);
  });

  test("command output and model text of control characters: every delta fits", async () => {
    const { w } = await freshWorld();
    const command = "head -c 70000 /dev/zero | tr '\\0' '\\1'";
    w.server.reply(
      answer({
        text: ["\u0002".repeat(30_000)],
        calls: [{ name: "shell", input: { command }, id: "c1" }],
      }),
    );
    w.server.reply(text("Finished."));
    const { result, events } = await runTurn(w.child, "print", "full_access");
    assert.equal(result.status, "completed");
    const output = bodiesOf(events, "tool_output_delta");
    assert.ok(output.map((e) => e.text).join("") === "\u0001".repeat(70_000), "the output whole");
    const [first] = bodiesOf(events, "message_done");
    const deltas = bodiesOf(events, "message_delta").filter((e) => e.item_id === first.item_id);
    assert.ok(deltas.length > 1, "the text is split over deltas");
    assert.ok(deltas.map((e) => e.text).join("") === "\u0002".repeat(30_000), "the text whole");
    for (const body of [...output, ...deltas]) assert.ok(frameBytesOf(w, body) <= EVENT_BYTES);
  });

  test("a diff of control characters: tool_done fits, cut and marked", async () => {
    const { w } = await freshWorld();
    const content = `${"\u0003".repeat(12_000)}\n`;
    const run = await runCallsTurn(w, "full_access", [
      { name: "write_file", input: { path: "ctl.txt", content }, id: "c1" },
    ]);
    const [done] = bodiesOf(run.events, "tool_done");
    assert.match(done.diff, /\n\[\.\.\. cut to fit the event size\]$/);
    const bytes = frameBytesOf(w, done);
    assert.ok(bytes <= EVENT_BYTES && bytes > EVENT_BYTES - 1024, `tool_done of ${bytes} bytes`);
    assert.equal(readFileSync(join(w.box.workspace, "ctl.txt"), "utf8"), content);
  });
});

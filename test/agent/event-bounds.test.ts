import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CUT_MARK, EVENT_BYTES, eventFrameBytes } from "../../src/agent/event-bounds.js";
import { TurnEvents } from "../../src/agent/turn-events.js";
import type { TurnEventBody, TurnEventParams } from "../../src/protocol/schemas/turns.js";

/** Every event's whole frame within event_bytes: at the bound, an event goes as it is. */

const REQUEST = "req-1";
const TURN = "turn-1";

function capture() {
  const frames: TurnEventParams[] = [];
  const events = new TurnEvents(async (params) => void frames.push(params), REQUEST, TURN);
  return { frames, events };
}

const approval = (command: string): Extract<TurnEventBody, { type: "approval_requested" }> => ({
  type: "approval_requested",
  approval_id: `${TURN}.a1`,
  item_id: `${TURN}.i1`,
  kind: "command",
  title: "Run printf",
  command,
  path: null,
  diff: null,
  truncated: false,
  rule: null,
});

const measured = (event: TurnEventBody) =>
  eventFrameBytes({ request_id: REQUEST, turn_id: TURN, event });

/** A command of control characters (6 bytes each in JSON) whose event measures `bytes`. */
function commandOfSize(bytes: number): string {
  const base = measured(approval(""));
  const over = bytes - base;
  // Six-byte characters, then one-byte ones for the remainder.
  return "\u0001".repeat(Math.floor(over / 6)) + "x".repeat(over % 6);
}

describe("event bounds at the edge", () => {
  test("an approval_requested exactly at event_bytes goes whole, not truncated", async () => {
    const command = commandOfSize(EVENT_BYTES);
    assert.equal(measured(approval(command)), EVENT_BYTES);
    const { frames, events } = capture();
    await events.approvalRequested(approval(command));
    const sent = frames[0]?.event as ReturnType<typeof approval>;
    assert.ok(sent.command === command, "the command whole");
    assert.equal(sent.truncated, false);
  });

  test("one byte past: cut by what it is over (at a character), marked, truncated", async () => {
    const command = commandOfSize(EVENT_BYTES + 1);
    assert.equal(measured(approval(command)), EVENT_BYTES + 1);
    const { frames, events } = capture();
    await events.approvalRequested(approval(command));
    const sent = frames[0]?.event as ReturnType<typeof approval>;
    assert.equal(sent.truncated, true);
    assert.ok(sent.command?.endsWith(CUT_MARK));
    assert.ok(command.startsWith((sent.command ?? "").slice(0, -CUT_MARK.length)));
    const bytes = measured(sent);
    assert.ok(bytes <= EVENT_BYTES, `${bytes} bytes`);
    assert.ok(bytes > EVENT_BYTES - 6 - 2 * CUT_MARK.length, `cut more than needed: ${bytes}`);
    // The frame as written (at its real seq) is never larger than as measured.
    const line = JSON.stringify({ method: "turn.event", params: frames[0] });
    assert.ok(Buffer.byteLength(line) <= bytes);
  });

  test("tool_done: a summary exactly at the bound goes whole, one past is cut", async () => {
    const done = (summary: string): TurnEventBody => ({
      type: "tool_done",
      item_id: `${TURN}.i1`,
      status: "completed",
      summary,
      exit_code: 0,
      diff: null,
    });
    const pad = EVENT_BYTES - measured(done(""));
    for (const [summary, cut] of [
      ["\u0002".repeat(Math.floor(pad / 6)) + "y".repeat(pad % 6), false],
      ["\u0002".repeat(Math.floor(pad / 6)) + "y".repeat((pad % 6) + 1), true],
    ] as const) {
      const { frames, events } = capture();
      await events.toolDone(done(summary) as Extract<TurnEventBody, { type: "tool_done" }>);
      const sent = frames[0]?.event as { summary: string };
      assert.equal(sent.summary !== summary, cut);
      assert.ok(measured(frames[0]?.event as TurnEventBody) <= EVENT_BYTES);
    }
  });

  test("tool_call: an input that would take the event past the bound is shown by its size", async () => {
    const { frames, events } = capture();
    const input = { command: "\u0003".repeat(2000) }; // 12,000 bytes of JSON
    await events.toolCall({
      type: "tool_call",
      item_id: `${TURN}.i1`,
      tool: "shell",
      title: "Run",
      input,
    });
    assert.deepEqual(frames[0]?.event, {
      type: "tool_call",
      item_id: `${TURN}.i1`,
      tool: "shell",
      title: "Run",
      input: { omitted_bytes: Buffer.byteLength(JSON.stringify(input)) },
    });
  });

  test("a delta of control characters is split so that each frame fits", async () => {
    const { frames, events } = capture();
    await events.output(`${TURN}.i1`, "stderr", "\u0004".repeat(40_000));
    assert.ok(frames.length >= 4);
    for (const params of frames) assert.ok(measured(params.event) <= EVENT_BYTES);
  });
});

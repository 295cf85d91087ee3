/**
 * The bounds of a subagent's ACP progress (src/acp/subagent-view.ts), at each edge and one past:
 * the last PROGRESS_LINES calls are shown (the rest counted), a line is at most 160 characters,
 * the answer at most `tool_output_bytes`; a subagent's own calls stay hidden unless announced.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { PROGRESS_LINES, SubagentView } from "../../src/acp/subagent-view.js";
import { TURN_EXTENSION, type TurnEventBody } from "../../src/protocol/schemas/turns.js";

const AGENT = "t1.1";

function started(view: SubagentView): void {
  view.called({
    type: "tool_call",
    item_id: AGENT,
    tool: "agent",
    title: "Agent: Map",
    input: { description: "Map  the\ncode", prompt: "p" },
  });
}

function inner(event: Record<string, unknown>) {
  return {
    type: "subagent_event",
    item_id: AGENT,
    subagent_id: AGENT,
    event,
  } as Extract<TurnEventBody, { type: "subagent_event" }>;
}

/** Runs `n` calls of the subagent, each ended; returns the last progress text. */
function calls(view: SubagentView, n: number, title = (i: number) => `Read f${i}`): string {
  let last: SessionUpdate[] = [];
  for (let i = 0; i < n; i++) {
    const item_id = `${AGENT}.${i}`;
    view.inner(
      inner({ type: "tool_call", item_id, tool: "read_file", title: title(i), input: {} }),
    );
    last = view.inner(
      inner({
        type: "tool_done",
        item_id,
        status: "completed",
        summary: "ok",
        exit_code: null,
        diff: null,
      }),
    );
  }
  return textOf(last[0]);
}

function textOf(update: SessionUpdate | undefined): string {
  if (update?.sessionUpdate !== "tool_call_update") return "";
  return (update.content ?? [])
    .map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : ""))
    .join("\n---\n");
}

describe("acp subagent view", () => {
  it("the title is the description on one line; the kind is think", () => {
    const view = new SubagentView();
    const [update] = view.called({
      type: "tool_call",
      item_id: AGENT,
      tool: "agent",
      title: "Agent: x",
      input: { description: "Map  the\ncode", prompt: "p" },
    });
    assert.equal(update?.sessionUpdate === "tool_call" && update.title, "Map the code");
    assert.equal(update?.sessionUpdate === "tool_call" && update.kind, "think");
  });

  it(`shows ${PROGRESS_LINES} calls whole, and one more as '(1 earlier)'`, () => {
    const atBound = new SubagentView();
    started(atBound);
    const whole = calls(atBound, PROGRESS_LINES).split("\n");
    assert.equal(whole.length, 1 + PROGRESS_LINES);
    assert.ok(!whole.some((line) => line.includes("earlier")));
    const past = new SubagentView();
    started(past);
    const cut = calls(past, PROGRESS_LINES + 1).split("\n");
    assert.equal(cut[0], `0 steps · ${PROGRESS_LINES + 1} tool calls`);
    assert.equal(cut[1], "(1 earlier)");
    assert.equal(cut.length, 2 + PROGRESS_LINES);
    assert.equal(cut[2], "• Read f1 · ✓ ok", "the oldest is the one left out");
  });

  it("a line is at most 160 characters, cut with …", () => {
    const line = (chars: number) => {
      const view = new SubagentView();
      started(view);
      // "• " + title + " · ✓ ok" = title + 9 characters.
      return calls(view, 1, () => "x".repeat(chars - 9)).split("\n")[1] ?? "";
    };
    assert.equal([...line(160)].length, 160);
    assert.ok(!line(160).endsWith("…"));
    assert.equal([...line(161)].length, 160);
    assert.ok(line(161).endsWith("…"));
  });

  it("the answer is at most tool_output_bytes at the end; its own calls stay hidden", () => {
    const view = new SubagentView();
    started(view);
    calls(view, 1);
    assert.equal(view.hidden(`${AGENT}.0`), true, "not a tool call of the editor's");
    assert.equal(view.hidden(AGENT), false);
    const bound = TURN_EXTENSION.tool_output_bytes;
    view.inner(
      inner({ type: "message_done", item_id: `${AGENT}.9`, text: "é".repeat(bound), phase: null }),
    );
    const [end] = view.done({
      type: "tool_done",
      item_id: AGENT,
      status: "completed",
      summary: "done in 1 step",
      exit_code: null,
      diff: null,
    });
    const parts = textOf(end).split("\n---\n");
    assert.equal(parts.length, 3);
    assert.equal(Buffer.byteLength(parts[1] ?? ""), bound);
    assert.equal(parts[2], "done in 1 step");
  });
});

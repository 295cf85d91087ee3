import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import { call, type SeenRequest, text, toolCalls } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import {
  bodiesOf,
  finishTurn,
  historyOf,
  runTurn,
  type StartedTurn,
  startTurn,
  turnRecords,
} from "../turn-driver.js";
import { KIT_KEY, KIT_MODEL, withTurnWorld } from "../turn-world.js";

/**
 * A turn as a frontend sees it (turns.md sections 3-6 and 9): a streamed text turn that saves
 * its lazy session, and a tool call under `ask` that waits for `turn.approve`, with the tool's
 * result returned to the model under its call ID (or the denial, when denied).
 */
const NOTE = "kit-note.txt";
const NOTE_TEXT = "written by the conformance kit\n";
const CALL_ID = "call_kit_write_1";

/** The model asks to write the note, under the kit's call ID. */
const writeCall = () =>
  toolCalls([call("write_file", { path: NOTE, content: NOTE_TEXT }, CALL_ID)]);

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Message = any;

function messagesOf(request: SeenRequest | undefined): Message[] {
  const messages = request?.body?.messages;
  assert.ok(Array.isArray(messages), "the model request carries Chat Completions messages");
  return messages;
}

/** Starts the write turn and answers its approval with `decision`; returns the approval ID. */
async function approveWrite(child: TestChild, turn: StartedTurn, decision: string) {
  const asked = await turn.event("approval_requested");
  const approval = asked.event as { approval_id: string; item_id: string; kind: string };
  assert.equal(approval.kind, "edit", "a file write under ask is an edit approval");
  const call = turn.events().find((e) => e.event.type === "tool_call");
  assert.ok(call && call.seq < asked.seq, "tool_call comes before its approval");
  assert.equal((call.event as { item_id: string }).item_id, approval.item_id);
  assert.equal((call.event as { tool: string }).tool, "write_file");
  assert.ok(!existsSync(join(child.options.cwd, NOTE)), "nothing is written before approval");
  const applied = await child.call("turn.approve", {
    approval_id: approval.approval_id,
    decision: decision as "allow_once",
  });
  assert.deepEqual(applied, { approval_id: approval.approval_id, decision, state: "applied" });
  return approval;
}

/** The tool message the second model call carried for the kit's call ID. */
function toolResultShown(request: SeenRequest | undefined): Message {
  const messages = messagesOf(request);
  const asked = messages.find((m) => m.role === "assistant" && Array.isArray(m.tool_calls));
  assert.equal(asked?.tool_calls?.[0]?.id, CALL_ID, "the model's call is replayed with its ID");
  const result = messages.find((m) => m.role === "tool");
  assert.equal(result?.tool_call_id, CALL_ID, "the tool result goes back under its call ID");
  return result;
}

export const TURN_FLOW_CASES: ConformanceCase[] = [
  {
    id: "turns.tool.unknown_tool_shown",
    tier: "MUST",
    clause:
      "docs/turns.md §4: a call of a tool that does not exist is still a tool_call, under the model's name (control characters escaped, at most 64 bytes), and ends tool_done failed; the model is told and the turn goes on.",
    title: "a call of a tool we do not have: tool_call under its name, tool_done failed",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(
          toolCalls([call("get_weather", { city: "Paris" }, "call_kit_unknown")]),
          text("I have no weather tool."),
        );
        const { result, events } = await runTurn(child, "Weather in Paris?", "read_only");
        assert.equal(result.status, "completed");
        const [shown] = bodiesOf(events, "tool_call");
        assert.equal(shown?.tool, "get_weather", "the call is shown under the model's name");
        assert.deepEqual(shown?.input, { city: "Paris" });
        const [done] = bodiesOf(events, "tool_done");
        assert.equal(done?.item_id, shown?.item_id);
        assert.equal(done?.status, "failed");
        const answered = messagesOf(server.requests[1]).find((m) => m.role === "tool");
        assert.equal(answered?.tool_call_id, "call_kit_unknown", "the model is told, by call ID");
      });
    },
  },
  {
    id: "turns.text.streamed_and_saved",
    tier: "MUST",
    clause:
      "turns.md §3-4, §8: turn_started first, gapless seq, message_done equal to the deltas joined, every event before the one result; the first turn of a lazy handle saves it (listed afterwards).",
    title: "a text turn on a lazy handle: events in order, completed/end_turn, session saved",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        const { session } = await child.call("session.create", {});
        const reply = "Hello from the model, streamed in small pieces.";
        server.reply(text(reply));
        const { result, events } = await runTurn(child, "Say hello");
        assert.equal(result.status, "completed");
        assert.equal(result.stop_reason, "end_turn");
        assert.equal(result.error, null);
        assert.equal(result.session_id, session.id);
        const [started] = bodiesOf(events, "turn_started");
        assert.equal(started?.session_id, session.id);
        assert.equal(started?.model, KIT_MODEL);
        assert.equal(started?.effort, null, "a model without efforts runs with effort null");
        assert.equal(started?.permissions, "ask", "permissions default to ask");
        assert.equal(started?.created_session, true, "this turn saved the lazy handle");
        // Pieces that reach the child together may leave as one delta (turns.md section 4).
        assert.ok(bodiesOf(events, "message_delta").length >= 1, "the text arrives in deltas");
        assert.deepEqual(
          bodiesOf(events, "message_done").map((d) => [d.text, d.phase]),
          [[reply, null]],
          "message_done carries its phase: null from a provider that names none",
        );
        assert.ok(bodiesOf(events, "usage").length >= 1, "a usage event after the model call");
        const request = server.requests[0];
        assert.equal(request?.body?.stream, true, "the model is called streaming");
        assert.deepEqual(messagesOf(request).at(-1), { role: "user", content: "Say hello" });
        assert.equal(request?.headers.authorization, `Bearer ${KIT_KEY}`);
        const status = await child.call("status", {});
        assert.deepEqual(status.attachment, { session_id: session.id, saved: true });
        const list = await child.call("session.list", {});
        const listed = list.sessions.find((s) => s.id === session.id);
        assert.ok(listed, "the saved session is listed");
        assert.equal(listed.busy, false, "no writer lock is left after the turn");
        const records = turnRecords(await historyOf(child, session.id), result.turn_id);
        const types = records.map((r) => r.type);
        for (const type of ["turn_start", "user_message", "assistant_message", "turn_end"])
          assert.ok(types.includes(type), `the turn recorded ${type}`);
        assert.equal(records.find((r) => r.type === "user_message")?.text, "Say hello");
        assert.equal(records.find((r) => r.type === "assistant_message")?.text, reply);
      });
    },
  },
  {
    id: "turns.tool.approval_allow_once",
    tier: "MUST",
    clause:
      "turns.md §3-4, §6: under ask a write waits for approval_requested; turn.approve allow_once applies; tool_done; the result goes back to the model; edits carry a unified diff.",
    title: "a write under ask: approval, allow_once, tool_done, result under its call ID",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(writeCall(), text("The note is written."));
        const turn = startTurn(child, "Write the note.", "ask");
        const approval = await approveWrite(child, turn, "allow_once");
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "completed");
        assert.equal(result.stop_reason, "end_turn");
        assert.equal(result.steps, 2, "two model calls: the tool call and the answer");
        assert.deepEqual(
          bodiesOf(events, "approval_resolved").map((r) => [r.approval_id, r.decision]),
          [[approval.approval_id, "allow_once"]],
        );
        const [done] = bodiesOf(events, "tool_done");
        assert.equal(done?.item_id, approval.item_id);
        assert.equal(done?.status, "completed");
        const diffs = [done?.diff, ...bodiesOf(events, "approval_requested").map((a) => a.diff)];
        assert.ok(
          diffs.some((d) => d?.includes("+written by the conformance kit")),
          "the edit's events carry a unified diff",
        );
        assert.equal(readFileSync(join(ctx.box.workspace, NOTE), "utf8"), NOTE_TEXT);
        toolResultShown(server.requests[1]);
        const again = await child.request("turn.approve", {
          approval_id: approval.approval_id,
          decision: "allow_once",
        });
        assert.equal(again.error?.code, "approval_missing", "a decided approval is gone");
      });
    },
  },
  {
    id: "turns.tool.deny",
    tier: "MUST",
    clause:
      'turns.md §6: A denied call returns "denied by the user" to the model; the turn goes on. §4: approval_resolved deny, tool_done denied.',
    title: "a denied write: nothing written, the denial returned to the model, the turn goes on",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        await child.call("session.create", {});
        server.reply(writeCall(), text("Understood, I will not write it."));
        const turn = startTurn(child, "Write the note.");
        const approval = await approveWrite(child, turn, "deny");
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "completed", "a denial does not fail the turn");
        assert.deepEqual(
          bodiesOf(events, "approval_resolved").map((r) => r.decision),
          ["deny"],
        );
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => [d.item_id, d.status]),
          [[approval.item_id, "denied"]],
        );
        assert.ok(!existsSync(join(ctx.box.workspace, NOTE)), "a denied write writes nothing");
        const shown = toolResultShown(server.requests[1]);
        assert.match(JSON.stringify(shown.content), /denied by the user/i);
      });
    },
  },
];

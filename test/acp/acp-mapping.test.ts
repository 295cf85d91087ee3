import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RequestError } from "@agentclientprotocol/sdk";
import { replayUpdates } from "../../src/acp/history-replay.js";
import { decisionFor, permissionToolCall } from "../../src/acp/permission.js";
import { promptText } from "../../src/acp/prompt-input.js";
import { configOptions } from "../../src/acp/session-config.js";
import { diffContent, replayTitle, toolKind, toolLocations } from "../../src/acp/tool-calls.js";
import { stopReason, TurnUpdates } from "../../src/acp/turn-updates.js";
import { normaliseLine, withOurErrorData } from "../../src/acp/wire-errors.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";

const CWD = "/work/app";
const usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 };
const base = { turn_id: "t-1", session_id: "s-1", usage, steps: 1 };

describe("acp mapping", () => {
  it("stop reasons: ours to ACP's", () => {
    const completed = (reason: "end_turn" | "max_tokens" | "max_steps" | "refusal") =>
      stopReason({ ...base, status: "completed", stop_reason: reason, error: null });
    assert.equal(completed("end_turn"), "end_turn");
    assert.equal(completed("max_tokens"), "max_tokens");
    assert.equal(completed("max_steps"), "max_turn_requests");
    assert.equal(completed("refusal"), "refusal");
    assert.equal(
      stopReason({ ...base, status: "interrupted", stop_reason: "interrupted", error: null }),
      "cancelled",
    );
    assert.equal(
      stopReason({
        ...base,
        status: "failed",
        stop_reason: null,
        error: { code: "rate_limited", message: "m" },
      }),
      null,
    );
  });

  it("permission answers: allow_always is our allow_session, cancelled interrupts", () => {
    assert.equal(decisionFor({ outcome: "selected", optionId: "allow_once" }), "allow_once");
    assert.equal(decisionFor({ outcome: "selected", optionId: "allow_always" }), "allow_session");
    assert.equal(decisionFor({ outcome: "selected", optionId: "reject_once" }), "deny");
    assert.equal(decisionFor({ outcome: "selected", optionId: "anything-else" }), "deny");
    assert.equal(decisionFor({ outcome: "cancelled" }), "interrupt");
  });

  it("a command approval shows the command; an edit its diff and path", () => {
    const command = permissionToolCall(CWD, {
      type: "approval_requested",
      approval_id: "a1",
      item_id: "i1",
      kind: "command",
      title: "Run ls",
      command: "ls -la",
      path: null,
      diff: null,
      truncated: false,
    });
    assert.equal(command.kind, "execute");
    assert.deepEqual(command.content, [
      { type: "content", content: { type: "text", text: "ls -la" } },
    ]);
    const edit = permissionToolCall(CWD, {
      type: "approval_requested",
      approval_id: "a2",
      item_id: "i2",
      kind: "edit",
      title: "Edit a.txt",
      command: null,
      path: "src/a.txt",
      diff: "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n",
      truncated: false,
    });
    assert.deepEqual(edit.locations, [{ path: "/work/app/src/a.txt" }]);
    assert.deepEqual(edit.content, [
      { type: "diff", path: "/work/app/src/a.txt", oldText: "keep\nold\n", newText: "keep\nnew\n" },
    ]);
  });

  it("diffs: a created file has no oldText; each hunk is one entry; garbage gives none", () => {
    assert.deepEqual(diffContent(CWD, "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+hi\n"), [
      { type: "diff", path: "/work/app/n.txt", oldText: null, newText: "hi\n" },
    ]);
    const two = diffContent(
      CWD,
      "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n@@ -10,1 +10,1 @@\n-c\n+d\n",
    );
    assert.equal(two.length, 2);
    assert.deepEqual(diffContent(CWD, "not a diff"), []);
  });

  it("kinds and locations of our tools", () => {
    assert.deepEqual(
      ["read_file", "list_dir", "search", "write_file", "edit_file", "shell", "other"].map(
        toolKind,
      ),
      ["read", "read", "search", "edit", "edit", "execute", "other"],
    );
    assert.deepEqual(toolLocations(CWD, { path: "a/b.ts", offset: 12 }), [
      { path: "/work/app/a/b.ts", line: 12 },
    ]);
    assert.deepEqual(toolLocations(CWD, { command: "ls" }), []);
    assert.deepEqual(toolLocations(CWD, null), []);
    assert.equal(replayTitle("shell", { command: "npm test\nmore" }), "Run npm test");
    assert.equal(replayTitle("search", { pattern: "TODO" }), "Search TODO");
    assert.equal(replayTitle("read_file", { path: "x".repeat(200) }).length, "Read ".length + 80);
  });

  it("turn events: text, thoughts, a command's output up to tool_output_bytes, usage", () => {
    const updates = new TurnUpdates(CWD);
    assert.deepEqual(updates.map({ type: "message_delta", item_id: "m", text: "Hi" }), [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } },
    ]);
    assert.deepEqual(updates.map({ type: "reasoning_delta", item_id: "r", text: "hmm" }), [
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
    ]);
    assert.deepEqual(updates.map({ type: "message_done", item_id: "m", text: "Hi" }), []);
    const first = updates.map({
      type: "tool_output_delta",
      item_id: "s",
      stream: "stdout",
      text: "a",
    });
    const second = updates.map({
      type: "tool_output_delta",
      item_id: "s",
      stream: "stderr",
      text: "b",
    });
    assert.deepEqual(second, [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "s",
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: "ab" } }],
      },
    ]);
    assert.equal(first.length, 1);
    // At the bound: the piece that would pass it is not shown, nor anything after it.
    const room = TURN_EXTENSION.tool_output_bytes - 2;
    assert.equal(
      updates.map({
        type: "tool_output_delta",
        item_id: "s",
        stream: "stdout",
        text: "x".repeat(room),
      }).length,
      1,
    );
    assert.deepEqual(
      updates.map({ type: "tool_output_delta", item_id: "s", stream: "stdout", text: "y" }),
      [],
    );
    const done = updates.map({
      type: "tool_done",
      item_id: "s",
      status: "failed",
      summary: "exit 1",
      exit_code: 1,
      diff: null,
    })[0];
    assert.ok(done?.sessionUpdate === "tool_call_update");
    assert.equal(done.status, "failed");
    assert.equal(done.content?.length, 2, "the output, then the summary");
    const noWindow = { type: "usage", ...usage, context_window: null } as const;
    assert.deepEqual(updates.map(noWindow), []);
    assert.deepEqual(
      updates.map({
        type: "usage",
        ...usage,
        input_tokens: 40,
        output_tokens: 2,
        context_window: 100,
      }),
      [{ sessionUpdate: "usage_update", used: 42, size: 100 }],
    );
  });

  it("prompts: text and embedded context are kept; images are refused", () => {
    assert.equal(
      promptText([
        { type: "text", text: "Look at this" },
        { type: "resource", resource: { uri: "file:///a.ts", text: "let a;" } },
        { type: "resource_link", name: "b.ts", uri: "file:///b.ts" },
      ]),
      'Look at this\n\n<context uri="file:///a.ts">\nlet a;\n</context>\n\n[b.ts](file:///b.ts)',
    );
    assert.throws(
      () => promptText([{ type: "image", data: "AAAA", mimeType: "image/png" }]),
      (error: RequestError) => error.code === -32602,
    );
    assert.throws(() => promptText([{ type: "text", text: "  " }]));
  });

  it("history records replay as chunks and tool calls; others show nothing", () => {
    const ts = "2026-12-01T00:00:00.000Z";
    assert.deepEqual(replayUpdates(CWD, { type: "user_message", ts, text: "hi" }), [
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
    ]);
    assert.equal(replayUpdates(CWD, { type: "turn_start", ts }).length, 0);
    assert.equal(replayUpdates(CWD, { type: "tool_call", ts, item_id: 5 }).length, 0, "checked");
    const result = replayUpdates(CWD, {
      type: "tool_result",
      ts,
      item_id: "i",
      status: "denied",
      output: "Denied.",
    })[0];
    assert.ok(result?.sessionUpdate === "tool_call_update");
    assert.equal(result.status, "failed");
  });

  it("config options: no model is chosen for the user; efforts only with the model's", () => {
    const choice = {
      id: "p/m",
      provider: "p",
      model: "m",
      name: null,
      efforts: ["low", "high"],
      default_effort: "low",
      selectable: true as const,
    };
    const none = configOptions("ask", [choice], { model: null, effort: null });
    const model = none.find((o) => o.id === "model");
    assert.ok(model?.type === "select");
    assert.equal(model.currentValue, "none");
    assert.equal(
      none.find((o) => o.id === "thought_level"),
      undefined,
    );
    const chosen = configOptions("ask", [choice], { model: "p/m", effort: null });
    const effort = chosen.find((o) => o.id === "thought_level");
    assert.ok(effort?.type === "select");
    assert.equal(effort.currentValue, "low");
    const noDefault = configOptions("ask", [{ ...choice, default_effort: null }], {
      model: "p/m",
      effort: null,
    }).find((o) => o.id === "thought_level");
    assert.ok(noDefault?.type === "select");
    assert.equal(noDefault.currentValue, "default", "no effort is sent, and none is claimed");
  });

  it("SDK errors: our code in data, the echoed frame dropped", () => {
    assert.deepEqual(
      withOurErrorData({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "m", data: { secret: 1 } },
      }),
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "m", data: { code: "invalid_request" } },
      },
    );
    const ours = {
      jsonrpc: "2.0" as const,
      id: 1,
      error: { code: -32002, message: "m", data: { code: "session_missing" } },
    };
    assert.equal(withOurErrorData(ours), ours);
    const result = { jsonrpc: "2.0" as const, id: 1, result: {} };
    assert.equal(withOurErrorData(result), result);
    // On the encoded line: an update whose text merely mentions errors passes as it is.
    const update = new TextEncoder().encode(
      `${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { text: '"error":{' } })}\n`,
    );
    assert.equal(normaliseLine(update), update);
    const echoed = new TextEncoder().encode(
      `${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "m", data: "sk-1" } })}\n`,
    );
    assert.equal(
      new TextDecoder().decode(normaliseLine(echoed)),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m","data":{"code":"invalid_request"}}}\n',
    );
  });
});

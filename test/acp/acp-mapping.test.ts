import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RequestError } from "@agentclientprotocol/sdk";
import { replayUpdates } from "../../src/acp/history-replay.js";
import { IMAGE_ONLY_INPUT, promptInput } from "../../src/acp/prompt-input.js";
import { checkedMode, configOptions, modeState } from "../../src/acp/session-config.js";
import { diffContent, replayTitle, toolKind, toolLocations } from "../../src/acp/tool-calls.js";
import { stopReason, TurnUpdates } from "../../src/acp/turn-updates.js";
import { normaliseLine } from "../../src/acp/wire-errors.js";
import type { RuleOffer } from "../../src/protocol/schemas/rules.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";
import { type ApprovalEvent, asked } from "./permission-asked.js";

const CWD = "/work/app";
const usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 };
const base = { turn_id: "t-1", session_id: "s-1", usage, steps: 1 };

/** An edit approval offering `rule` (or none). */
function approval(rule: RuleOffer | null): ApprovalEvent {
  return {
    type: "approval_requested",
    approval_id: "a1",
    item_id: "i1",
    kind: "edit",
    title: "Edit a.txt",
    command: null,
    path: "a.txt",
    diff: null,
    truncated: false,
    rule,
  };
}

/** The options the editor is offered for an approval offering `rule`. */
async function optionsFor(rule: RuleOffer | null) {
  return (await asked(CWD, approval(rule))).request.options;
}

/** The tool call the editor is shown for `event`. */
async function toolCallFor(event: ApprovalEvent) {
  return (await asked(CWD, event)).request.toolCall;
}

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

  it("permission options: the lasting ones name the offered rule; none without a rule", async () => {
    const shell = await optionsFor({
      tool: "shell",
      match: "prefix",
      env: [],
      words: ["npm", "test"],
      text: "npm test",
    });
    assert.deepEqual(
      shell.map((o) => [o.optionId, o.kind, o.name]),
      [
        ["allow_once", "allow_once", "Allow once"],
        ["allow_session", "allow_always", "Allow `npm test` for this session"],
        ["allow_always", "allow_always", "Always allow `npm test` in this workspace"],
        ["deny_always", "reject_always", "Always reject `npm test`"],
        ["reject_once", "reject_once", "Reject"],
      ],
    );
    const edit = await optionsFor({
      tool: "edit",
      path_glob: null,
      text: "every edit in the workspace",
    });
    assert.deepEqual(
      edit.map((o) => o.name),
      [
        "Allow once",
        "Allow every edit for this session",
        "Always allow every edit in this workspace",
        "Always reject every edit",
        "Reject",
      ],
    );
    const glob = await optionsFor({ tool: "edit", path_glob: "src/**", text: "edits of src/**" });
    assert.equal(glob[2]?.name, "Always allow edits of src/** in this workspace");
    assert.deepEqual(
      (await optionsFor(null)).map((o) => [o.optionId, o.kind]),
      [
        ["allow_once", "allow_once"],
        ["reject_once", "reject_once"],
      ],
    );
  });

  it("permission answers: each offered option its decision; others deny; cancelled interrupts", async () => {
    const offered: RuleOffer = { tool: "edit", path_glob: null, text: "every edit" };
    const pick = async (optionId: string, rule: RuleOffer | null = offered) =>
      (await asked(CWD, approval(rule), { outcome: "selected", optionId })).decision;
    assert.equal(await pick("allow_once"), "allow_once");
    assert.equal(await pick("allow_session"), "allow_session");
    assert.equal(await pick("allow_always"), "allow_always");
    assert.equal(await pick("deny_always"), "deny_always");
    assert.equal(await pick("reject_once"), "deny");
    assert.equal(await pick("anything-else"), "deny");
    assert.equal(await pick("__proto__"), "deny");
    assert.equal(await pick("toString"), "deny");
    // Not offered (no rule): a lasting answer is refused, never kept.
    assert.equal(await pick("allow_always", null), "deny");
    assert.equal(await pick("allow_session", null), "deny");
    assert.equal(await pick("deny_always", null), "deny");
    assert.equal(await pick("allow_once", null), "allow_once");
    const cancelled = await asked(CWD, approval(offered), { outcome: "cancelled" });
    assert.equal(cancelled.decision, "interrupt");
  });

  it("a command approval shows the command; an edit its diff and path", async () => {
    const command = await toolCallFor({
      type: "approval_requested",
      approval_id: "a1",
      item_id: "i1",
      kind: "command",
      title: "Run ls",
      command: "ls -la",
      path: null,
      diff: null,
      truncated: false,
      rule: null,
    });
    assert.equal(command.kind, "execute");
    assert.deepEqual(command.content, [
      { type: "content", content: { type: "text", text: "ls -la" } },
    ]);
    const edit = await toolCallFor({
      type: "approval_requested",
      approval_id: "a2",
      item_id: "i2",
      kind: "edit",
      title: "Edit a.txt",
      command: null,
      path: "src/a.txt",
      diff: "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n",
      truncated: false,
      rule: null,
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
    assert.deepEqual(
      updates.map({ type: "message_done", item_id: "m", text: "Hi", phase: null }),
      [],
    );
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

  it("prompts: text and embedded context are kept; images become attachments; audio is refused", () => {
    assert.deepEqual(
      promptInput([
        { type: "text", text: "Look at this" },
        { type: "resource", resource: { uri: "file:///a.ts", text: "let a;" } },
        { type: "resource_link", name: "b.ts", uri: "file:///b.ts" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "image", data: "", mimeType: "image/jpeg", uri: "file:///tmp/a%20b.jpg" },
      ]),
      {
        text: 'Look at this\n\n<context uri="file:///a.ts">\nlet a;\n</context>\n\n[b.ts](file:///b.ts)',
        attachments: [
          { type: "image", media_type: "image/png", data_base64: "AAAA" },
          { type: "image", path: "/tmp/a b.jpg" },
        ],
      },
    );
    // Images alone still make an input; an image type no provider takes is refused.
    assert.deepEqual(
      promptInput([{ type: "image", data: "AAAA", mimeType: "image/png" }]).text,
      IMAGE_ONLY_INPUT,
    );
    assert.throws(
      () => promptInput([{ type: "image", data: "AAAA", mimeType: "image/tiff" }]),
      (error: RequestError) => error.code === -32602,
    );
    assert.throws(
      () => promptInput([{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]),
      (error: RequestError) => error.code === -32602,
    );
    assert.throws(() => promptInput([{ type: "text", text: "  " }]));
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

  it("modes: sandboxed only with a sandbox; asking for it without one is sandbox_unavailable", () => {
    const ids = (sandbox: boolean) => modeState("ask", sandbox).availableModes.map((m) => m.id);
    assert.deepEqual(ids(true), ["read_only", "ask", "accept_edits", "sandboxed", "full_access"]);
    assert.deepEqual(ids(false), ["read_only", "ask", "accept_edits", "full_access"]);
    const modeOption = (sandbox: boolean) => {
      const found = configOptions("ask", sandbox, [], { model: null, effort: null })[0];
      assert.ok(found?.type === "select" && found.id === "mode");
      return found.options.map((o) => ("value" in o ? o.value : o.group));
    };
    assert.deepEqual(modeOption(true), ids(true));
    assert.deepEqual(modeOption(false), ids(false));
    assert.equal(checkedMode("sandboxed", true), "sandboxed");
    assert.equal(checkedMode("full_access", false), "full_access");
    const refused = (value: string, sandbox: boolean) => {
      try {
        checkedMode(value, sandbox);
      } catch (error) {
        return (error as RequestError).data;
      }
      assert.fail("not refused");
    };
    assert.deepEqual(refused("sandboxed", false), { code: "sandbox_unavailable" });
    assert.deepEqual(refused("yolo", true), { code: "invalid_params" });
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
    const none = configOptions("ask", false, [choice], { model: null, effort: null });
    const model = none.find((o) => o.id === "model");
    assert.ok(model?.type === "select");
    assert.equal(model.currentValue, "none");
    assert.equal(
      none.find((o) => o.id === "thought_level"),
      undefined,
    );
    const chosen = configOptions("ask", false, [choice], { model: "p/m", effort: null });
    const effort = chosen.find((o) => o.id === "thought_level");
    assert.ok(effort?.type === "select");
    assert.equal(effort.currentValue, "low");
    const noDefault = configOptions("ask", false, [{ ...choice, default_effort: null }], {
      model: "p/m",
      effort: null,
    }).find((o) => o.id === "thought_level");
    assert.ok(noDefault?.type === "select");
    assert.equal(noDefault.currentValue, "default", "no effort is sent, and none is claimed");
  });

  it("SDK errors: our code in data, the echoed frame dropped", () => {
    const normalised = (message: object) =>
      JSON.parse(
        new TextDecoder().decode(
          normaliseLine(new TextEncoder().encode(`${JSON.stringify(message)}\n`)),
        ),
      );
    assert.deepEqual(
      normalised({
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
    assert.deepEqual(normalised(ours), ours);
    const result = { jsonrpc: "2.0" as const, id: 1, result: {} };
    assert.deepEqual(normalised(result), result);
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

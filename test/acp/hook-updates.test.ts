/**
 * Units of src/acp/hook-updates.ts: a hook run's tool call and its end, and a blocked prompt's
 * answer (docs/acp.md, "Hooks").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  blockedAnswer,
  hookDoneUpdate,
  hookStartedUpdate,
  resultOrBlocked,
} from "../../src/acp/hook-updates.js";
import { DEFAULT_MESSAGES } from "../../src/protocol/codes.js";
import { EngineError } from "../../src/server/engine-face.js";

test("a hook's title is one line, its command cut at 80 characters; rawInput keeps it whole", () => {
  const command = `./check.sh \\\n  --all\t${"x".repeat(100)}`;
  const update = hookStartedUpdate({
    type: "hook_started",
    hook_id: "t1.h1",
    event: "Stop",
    command,
  });
  assert.ok(update.sessionUpdate === "tool_call");
  assert.equal(update.toolCallId, "hook:t1.h1");
  assert.equal(update.kind, "execute");
  assert.equal(update.status, "in_progress");
  assert.ok(!update.title.includes("\n") && !update.title.includes("\t"));
  assert.equal(update.title.length, "Stop hook: ".length + 80);
  assert.ok(
    update.title.startsWith("Stop hook: ./check.sh \\ --all x") && update.title.endsWith("…"),
  );
  assert.deepEqual(update.rawInput, { hook_event_name: "Stop", command });
  const short = hookStartedUpdate({
    type: "hook_started",
    hook_id: "h",
    event: "Stop",
    command: "x".repeat(80),
  });
  assert.ok(short.sessionUpdate === "tool_call");
  assert.equal(short.title, `Stop hook: ${"x".repeat(80)}`, "80 characters fit whole");
});

test("a hook's end: ok and blocked complete, failed and timed_out fail; what it said is the content", () => {
  const done = (status: "ok" | "blocked" | "failed" | "timed_out", message: string) =>
    hookDoneUpdate({ type: "hook_done", hook_id: "h", status, duration_ms: 5, message });
  const ok = done("ok", "");
  assert.ok(ok.sessionUpdate === "tool_call_update");
  assert.equal(ok.status, "completed");
  assert.equal(ok.content, undefined);
  assert.deepEqual(ok.rawOutput, { status: "ok", duration_ms: 5 });
  const shown = (u: ReturnType<typeof done>) =>
    u.sessionUpdate === "tool_call_update" ? [u.status, JSON.stringify(u.content)] : [];
  assert.deepEqual(shown(done("ok", "formatted 2 files")), [
    "completed",
    JSON.stringify([{ type: "content", content: { type: "text", text: "formatted 2 files" } }]),
  ]);
  assert.match(shown(done("blocked", "no"))[1] as string, /"Blocked: no"/);
  assert.equal(shown(done("blocked", "no"))[0], "completed");
  assert.deepEqual(shown(done("failed", "boom")).map(String)[0], "failed");
  assert.match(shown(done("timed_out", ""))[1] as string, /"Timed out"/);
  assert.equal(shown(done("timed_out", ""))[0], "failed");
});

test("a blocked prompt: refusal, the reason as one agent message; other errors pass", async () => {
  const blocked = await resultOrBlocked(
    Promise.reject(new EngineError("prompt_blocked", "name a ticket")),
  );
  assert.deepEqual(blocked, { blocked: "name a ticket" });
  const answer = blockedAnswer("name a ticket");
  assert.equal(answer.stopReason, "refusal");
  assert.deepEqual(answer.update, {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "A UserPromptSubmit hook blocked this prompt: name a ticket" },
  });
  const silent = blockedAnswer(DEFAULT_MESSAGES.prompt_blocked).update;
  assert.ok(silent.sessionUpdate === "agent_message_chunk" && silent.content.type === "text");
  assert.equal(silent.content.text, DEFAULT_MESSAGES.prompt_blocked, "no reason said twice");
  const other = new EngineError("busy", "busy");
  await assert.rejects(resultOrBlocked(Promise.reject(other)), (e) => e === other);
});

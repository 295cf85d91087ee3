/**
 * Black box (docs/acp.md, "Hooks"), driven by the ACP SDK's own client: each hook run is a tool
 * call of its own (`hook:<id>`, kind `execute`, in_progress then completed or failed); a
 * PreToolUse deny fails the tool's call without a permission request and runs nothing; a prompt
 * a UserPromptSubmit hook blocks answers `refusal` after one agent message with the reason, and
 * nothing is sent or written; a project's hooks wait for trust, and after a yes run from the
 * next session.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { startChatServer, text, toolCall } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

const group = (command: string, matcher?: string) => [
  { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command }] },
];

/** An ACP world whose MC_HOME/config.json has `hooks(root)` (global: no trust needed). */
async function hookedWorld(hooks: (root: string) => unknown): Promise<AcpWorld> {
  const box = sandbox("mc-acp-hooks-");
  const server = await startChatServer();
  writeTurnHome(box, server.baseUrl, { contextWindow: 100_000 });
  const path = join(box.home, "config.json");
  const config = JSON.parse(readFileSync(path, "utf8"));
  config.hooks = hooks(box.root);
  writeFileSync(path, JSON.stringify(config));
  return AcpWorld.start({ box, server });
}

type ToolUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;

function toolUpdates(w: AcpWorld): ToolUpdate[] {
  return w
    .updates()
    .filter(
      (u): u is ToolUpdate =>
        u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update",
    );
}

/** Each tool update as `<id kind>:<tool_call|update>:<status>`: hooks apart from model calls. */
function trail(w: AcpWorld): string[] {
  return toolUpdates(w).map(
    (u) =>
      `${u.toolCallId.startsWith("hook:") ? "hook" : "tool"}:${u.sessionUpdate === "tool_call" ? "call" : "update"}:${u.status}`,
  );
}

/** Our own status, in a tool update's rawOutput. */
const statusOf = (u: ToolUpdate | undefined) =>
  (u?.rawOutput as { status?: string } | undefined)?.status;

const permissions = (w: AcpWorld) => w.seen.filter((s) => s.kind === "permission");

describe("mc-agent acp: hooks", { timeout: 300_000 }, () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a PreToolUse hook run is a tool call of its own, between the call and its end", async () => {
    world = await hookedWorld((root) => ({
      PreToolUse: group(`cat > '${root}/pre.json'`, "Read"),
    }));
    const w = world;
    writeFileSync(join(w.box.workspace, "notes.txt"), "alpha\n");
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.reply(toolCall("read_file", { path: "notes.txt" }), text("Read."));
    assert.equal((await w.prompt(sessionId, "Read the notes")).stopReason, "end_turn");
    assert.deepEqual(trail(w), [
      "tool:call:pending",
      "hook:call:in_progress",
      "hook:update:completed",
      "tool:update:in_progress",
      "tool:update:completed",
    ]);
    const hook = toolUpdates(w).find((u) => u.toolCallId.startsWith("hook:"));
    assert.ok(hook?.sessionUpdate === "tool_call");
    assert.equal(hook.kind, "execute");
    assert.equal(hook.title, `PreToolUse hook: cat > '${w.box.root}/pre.json'`);
    assert.deepEqual(hook.rawInput, {
      hook_event_name: "PreToolUse",
      command: `cat > '${w.box.root}/pre.json'`,
    });
    const done = toolUpdates(w).filter((u) => u.toolCallId === hook.toolCallId)[1];
    assert.equal(statusOf(done), "ok");
    assert.equal(done?.content, undefined, "a silent hook says nothing");
    const stdin = JSON.parse(readFileSync(join(w.box.root, "pre.json"), "utf8"));
    assert.equal(stdin.tool_name, "read_file");
  });

  it("a PreToolUse deny: the tool's call fails with the reason, unasked, nothing runs", async () => {
    world = await hookedWorld(() => ({
      PreToolUse: group("echo 'no pushes to main' >&2; exit 2", "Bash"),
    }));
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.agent.request("session/set_mode", { sessionId, modeId: "ask" });
    w.server.reply(toolCall("shell", { command: "touch ran.txt" }), text("Understood."));
    assert.equal((await w.prompt(sessionId, "Push it")).stopReason, "end_turn");
    assert.deepEqual(trail(w), [
      "tool:call:pending",
      "hook:call:in_progress",
      "hook:update:completed",
      "tool:update:failed",
    ]);
    const [, , hookDone, toolDone] = toolUpdates(w);
    assert.match(JSON.stringify(hookDone?.content), /Blocked: no pushes to main/);
    assert.equal(statusOf(hookDone), "blocked");
    assert.equal(statusOf(toolDone), "denied");
    assert.equal(permissions(w).length, 0, "a denied call asks nothing");
    assert.ok(!existsSync(join(w.box.workspace, "ran.txt")));
    assert.match(JSON.stringify(w.server.requests[1]?.body.messages), /no pushes to main/);
  });

  it("a blocked prompt: refusal, the reason as an agent message, nothing sent or written", async () => {
    world = await hookedWorld(() => ({
      UserPromptSubmit: group("echo 'name a ticket first' >&2; exit 2"),
    }));
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.otherwise(text("Should not be asked."));
    assert.equal((await w.prompt(sessionId, "Do the thing")).stopReason, "refusal");
    assert.equal(w.agentText(), "A UserPromptSubmit hook blocked this prompt: name a ticket first");
    assert.equal(w.server.requests.length, 0);
    assert.deepEqual(trail(w), [], "no hook call shown: nothing of the turn started");
    const sessions = join(w.box.home, "sessions");
    const histories = existsSync(sessions)
      ? readdirSync(sessions).filter((n) => n.endsWith(".jsonl"))
      : [];
    assert.deepEqual(histories, [], "nothing written");
    // The session stays usable: the next prompt is judged again (and refused again).
    assert.equal((await w.prompt(sessionId, "Again")).stopReason, "refusal");
  });

  it("a project's hooks wait for trust; after a yes they run from the next session", async () => {
    world = await AcpWorld.start();
    const w = world;
    mkdirSync(join(w.box.workspace, ".mc"));
    const log = join(w.box.root, "project-hook.log");
    writeFileSync(
      join(w.box.workspace, ".mc", "config.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: group(`echo ran >> '${log}'`) } }),
    );
    let asked = 0;
    w.permission = (request) => {
      asked += 1;
      assert.match(JSON.stringify(request.toolCall.content), /hooks/);
      return { outcome: { outcome: "selected", optionId: "trust_workspace" } };
    };
    await w.initialize();
    const first = await w.newSession();
    w.server.reply(text("One."));
    assert.equal((await w.prompt(first.sessionId, "Hello")).stopReason, "end_turn");
    assert.equal(asked, 1);
    assert.ok(!existsSync(log), "this session's engine started untrusted: its hooks stay off");
    const second = await w.newSession();
    w.server.reply(text("Two."));
    assert.equal((await w.prompt(second.sessionId, "Hello again")).stopReason, "end_turn");
    assert.equal(asked, 1, "a trusted workspace is not asked about again");
    assert.equal(readFileSync(log, "utf8"), "ran\n", "the next session runs them");
  });
});

/**
 * Black box (docs/trust.md, "ACP"): a workspace whose .mc/config.json names an MCP server is
 * untrusted; the first prompt of a session asks through session/request_permission (answered by
 * the SDK's client), and a yes starts the project's server for that very session: the model's
 * call of its tool runs. "Not now" leaves it off, writes no trust, and is not asked twice.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { text, toolCall } from "../../src/conformance/chat-server.js";
import { everythingStdio } from "../mcp/mcp-world.js";
import { AcpWorld } from "./acp-world.js";

function writeProject(world: AcpWorld): void {
  mkdirSync(join(world.box.workspace, ".mc"), { recursive: true });
  writeFileSync(
    join(world.box.workspace, ".mc", "config.json"),
    JSON.stringify({ mcp_servers: { proj: everythingStdio() } }),
  );
}

const trustQuestions = (w: AcpWorld) =>
  w.seen.filter(
    (s) => s.kind === "permission" && s.request.toolCall.toolCallId === "workspace_trust",
  );

async function echoPrompt(w: AcpWorld, sessionId: string, message: string) {
  w.server.reply(toolCall("mcp__proj__echo", { message }), text("Done."));
  const answer = await w.prompt(sessionId, "Echo it");
  assert.equal(answer.stopReason, "end_turn");
  const call = w.updates("tool_call").at(-1);
  assert.ok(call?.sessionUpdate === "tool_call");
  const done = w
    .updates("tool_call_update")
    .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === call.toolCallId)
    .at(-1);
  assert.ok(done?.sessionUpdate === "tool_call_update");
  return done;
}

describe("mc-agent acp: workspace trust at the first prompt", { timeout: 300_000 }, () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a yes trusts the workspace and starts the project's server for this session", async () => {
    world = await AcpWorld.start();
    const w = world;
    writeProject(w);
    w.permission = (request) => {
      assert.equal(request.toolCall.toolCallId, "workspace_trust");
      assert.match(JSON.stringify(request.toolCall.content), /MCP servers \(proj\)/);
      assert.deepEqual(
        request.options.map((o) => [o.optionId, o.kind]),
        [
          ["trust_workspace", "allow_always"],
          ["not_now", "reject_once"],
        ],
      );
      return { outcome: { outcome: "selected", optionId: "trust_workspace" } };
    };
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    const done = await echoPrompt(w, sessionId, "trusted-echo");
    assert.equal(done.status, "completed");
    assert.match(JSON.stringify(done.content), /trusted-echo/);
    assert.equal(trustQuestions(w).length, 1);
    assert.ok(existsSync(join(w.box.home, "trust")), "the trust is kept under MC_HOME");
    // A later session starts trusted: no question.
    const second = await w.newSession();
    await w.agent.request("session/set_mode", {
      sessionId: second.sessionId,
      modeId: "full_access",
    });
    assert.equal((await echoPrompt(w, second.sessionId, "again")).status, "completed");
    assert.equal(trustQuestions(w).length, 1);
  });

  it("not now: the project's server stays off, nothing is written, no second question", async () => {
    world = await AcpWorld.start();
    const w = world;
    writeProject(w);
    w.permission = () => ({ outcome: { outcome: "selected", optionId: "not_now" } });
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    const done = await echoPrompt(w, sessionId, "never");
    assert.equal(done.status, "failed");
    w.server.reply(text("Fine."));
    assert.equal((await w.prompt(sessionId, "Hello")).stopReason, "end_turn");
    assert.equal(trustQuestions(w).length, 1);
    assert.ok(!existsSync(join(w.box.home, "trust")));
  });
});

/**
 * Black box: the SDK's own client sends ACP's (unstable) `session/fork` to the spawned
 * `mc-agent acp`; it is our `session.fork` of the whole history, answered with the new session,
 * which goes on from the copied history while the source stays as it was.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { text } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

describe("mc-agent acp: session/fork", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("advertises fork; the fork has the whole history and goes on from it", async () => {
    world = await AcpWorld.start();
    const w = world;
    const init = await w.initialize();
    // Unstable in the SDK 2.4 schema: not in the stable entry point's types.
    const capabilities = init.agentCapabilities?.sessionCapabilities as { fork?: unknown };
    assert.deepEqual(capabilities.fork, {});
    const { sessionId } = await w.newSession();
    w.server.reply(text("First answer."), text("Fork answer."));
    await w.prompt(sessionId, "first question");
    const forked = await w.agent.request<{ sessionId: string; modes?: unknown }>("session/fork", {
      sessionId,
      cwd: w.box.workspace,
      mcpServers: [],
    });
    assert.notEqual(forked.sessionId, sessionId);
    assert.ok(forked.modes);
    await w.prompt(forked.sessionId, "second question");
    const messages = JSON.stringify(w.server.requests.at(-1)?.body?.messages);
    assert.match(messages, /first question/);
    assert.match(messages, /First answer\./);
    assert.match(messages, /second question/);
    const listed = await w.agent.request("session/list", { cwd: w.box.workspace });
    const ids = listed.sessions.map((s) => s.sessionId).sort();
    assert.deepEqual(ids, [sessionId, forked.sessionId].sort());
  });

  it("an unknown source is session_missing; a bad cwd invalid_params; nothing is opened", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const refused = (params: object, code: string) =>
      assert.rejects(
        w.agent.request("session/fork", params),
        (error: { data?: { code?: string } }) => error.data?.code === code,
      );
    await refused({ sessionId: "no-such-session", cwd: w.box.workspace }, "session_missing");
    await refused({ sessionId: "x", cwd: "relative" }, "invalid_params");
    await refused({ cwd: w.box.workspace }, "invalid_params");
    const listed = await w.agent.request("session/list", { cwd: w.box.workspace });
    assert.equal(listed.sessions.length, 0);
  });
});

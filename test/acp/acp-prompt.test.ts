import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, describe, it } from "node:test";
import { fail, held, text } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

describe("mc-agent acp: initialize, new session, prompt", () => {
  let world: AcpWorld;
  afterEach(async () => {
    await world?.close();
  });

  it("streams the reply as agent_message_chunk updates, then answers end_turn", async () => {
    world = await AcpWorld.start();
    const init = await world.initialize();
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true);
    assert.deepEqual(init.agentCapabilities?.sessionCapabilities, {
      list: {},
      resume: {},
      close: {},
      fork: {},
      delete: {},
    });
    assert.deepEqual(init.authMethods, []);
    const created = await world.newSession();
    assert.match(created.sessionId, /\S/);
    assert.equal(created.modes?.currentModeId, "ask");
    let release = () => {};
    const door = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The role chunk and two pieces of text, then nothing until the first chunk was seen.
    world.server.reply(held({ text: "Hello from the loopback model." }, 3, door));
    const answer = world.prompt(created.sessionId, "Say hello");
    await world.until(() => world.agentText().length > 0, "a first chunk");
    assert.ok("Hello from the loopback model.".startsWith(world.agentText()));
    assert.notEqual(
      world.agentText(),
      "Hello from the loopback model.",
      "streamed, not at the end",
    );
    release();
    assert.equal((await answer).stopReason, "end_turn");
    assert.equal(world.agentText(), "Hello from the loopback model.");
    const usage = world.updates("usage_update");
    assert.ok(usage.length >= 1);
    const info = world.updates("session_info_update");
    assert.equal(info.length, 1);
    assert.equal(info[0]?.sessionUpdate === "session_info_update" && info[0].title, "Say hello");
    assert.equal(world.seen.at(-1)?.kind, "response");
    assert.equal(
      world.server.requests[0]?.headers.authorization,
      "Bearer sk-conformance-turn-key-9c4d27",
    );
    // The launcher handed the key over on fd 3: the agent's start-up environment never held it.
    const environ = readFileSync(`/proc/${world.proc.pid}/environ`, "utf8");
    assert.equal(environ.includes("sk-conformance-turn-key"), false);
  });

  it("shows each retry of a provider that is down or rate limiting as a thought, then the reply", async () => {
    world = await AcpWorld.start();
    await world.initialize();
    const created = await world.newSession();
    world.server.reply(fail(503), fail(429, { retryAfter: 1 }), text("Recovered."));
    const answer = await world.prompt(created.sessionId, "Hello");
    assert.equal(answer.stopReason, "end_turn");
    const thoughts = world
      .updates("agent_thought_chunk")
      .map((u) =>
        u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text"
          ? u.content.text
          : "",
      );
    assert.deepEqual(thoughts, [
      "\nRetrying now (the provider is unavailable, attempt 1)…\n",
      "\nRetrying in 1 s (the provider is rate limiting, attempt 2)…\n",
    ]);
    assert.equal(world.agentText(), "Recovered.");
    assert.equal(world.server.requests.length, 3);
  });

  it("gives the engine a prompt's lone surrogate as U+FFFD, as a frame's text would", async () => {
    // The editor's JSON may escape half a pair; nothing we send or store may hold one
    // (src/protocol/well-formed.ts), so the engine face makes the prompt well-formed.
    world = await AcpWorld.start();
    await world.initialize();
    const created = await world.newSession();
    world.server.reply(text("Noted."));
    const answer = await world.prompt(created.sessionId, "half \uD83D of a pair");
    assert.equal(answer.stopReason, "end_turn");
    const sent = world.server.requests[0]?.raw ?? "";
    assert.ok(sent.includes("half \uFFFD of a pair"), "the replacement character was sent");
    assert.equal(/\\ud83d/i.test(sent), false, "no lone surrogate escape was sent");
  });
});

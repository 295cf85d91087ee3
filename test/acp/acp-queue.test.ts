import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { held, text } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

function door(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** The last user message's text of each model request the loopback server saw. */
function lastUserTexts(w: AcpWorld): string[] {
  return w.server.requests.map((r) => {
    const users = (r.body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === "user",
    );
    return String(users.at(-1)?.content);
  });
}

describe("mc-agent acp: queued prompts and _mc/steer", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("advertises prompt queueing in _meta as the Claude ACP agent does, and names _mc/steer", async () => {
    world = await AcpWorld.start();
    const init = await world.initialize();
    assert.deepEqual(init.agentCapabilities?._meta, {
      claudeCode: { promptQueueing: true },
      "mc-agent": { promptQueueing: true, steer: "_mc/steer" },
    });
  });

  it("a second prompt while one runs is queued and answered after the first", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    const release = door();
    w.server.reply(held(text("First answer."), 3, release.wait), text("Second answer."));
    const order: string[] = [];
    const first = w.prompt(sessionId, "first").then((r) => {
      order.push("first");
      return r;
    });
    await w.until(() => w.agentText().length > 0, "a first chunk");
    const second = w.prompt(sessionId, "second").then((r) => {
      order.push("second");
      return r;
    });
    // The second waits: no model call for it while the first runs.
    await w.agent.request("session/set_mode", { sessionId, modeId: "ask" });
    assert.equal(w.server.requests.length, 1);
    release.open();
    assert.equal((await first).stopReason, "end_turn");
    assert.equal((await second).stopReason, "end_turn");
    assert.deepEqual(order, ["first", "second"]);
    assert.deepEqual(lastUserTexts(w), ["first", "second"]);
  });

  it("session/cancel cancels the running prompt only: the queued one runs next", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    const release = door();
    w.server.reply(held(text("Cut short."), 3, release.wait), text("Queued ran."));
    const first = w.prompt(sessionId, "first");
    await w.until(() => w.agentText().length > 0, "a first chunk");
    const second = w.prompt(sessionId, "second");
    await w.agent.request("session/set_mode", { sessionId, modeId: "ask" });
    await w.agent.notify("session/cancel", { sessionId });
    assert.equal((await first).stopReason, "cancelled");
    release.open();
    assert.equal((await second).stopReason, "end_turn");
    assert.match(w.agentText(), /Queued ran\.$/);
  });

  it("_mc/steer joins the running prompt's turn, shown as the user's words; nothing running is turn_missing", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    await assert.rejects(
      w.agent.request("_mc/steer", { sessionId, text: "hello?" }),
      (error: { data?: { code?: string } }) => error.data?.code === "turn_missing",
    );
    const release = door();
    w.server.reply(held(text("In English."), 3, release.wait), text("En français."));
    const answer = w.prompt(sessionId, "answer me");
    await w.until(() => w.agentText().length > 0, "a first chunk");
    const steered = (await w.agent.request("_mc/steer", { sessionId, text: "in French" })) as {
      steerId: string;
    };
    assert.equal(typeof steered.steerId, "string");
    release.open();
    assert.equal((await answer).stopReason, "end_turn");
    assert.deepEqual(lastUserTexts(w), ["answer me", "in French"]);
    const shown = w
      .updates("user_message_chunk")
      .map((u) =>
        u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? u.content.text : "",
      );
    assert.deepEqual(shown, ["in French"]);
  });

  it("session/load replays a steer where it happened: between the answer it cut into and the one it caused", async () => {
    const first = await AcpWorld.start();
    world = first;
    await first.initialize();
    const { sessionId } = await first.newSession();
    const release = door();
    first.server.reply(held(text("In English."), 3, release.wait), text("En français."));
    const answer = first.prompt(sessionId, "answer me");
    await first.until(() => first.agentText().length > 0, "a first chunk");
    await first.agent.request("_mc/steer", { sessionId, text: "in French" });
    release.open();
    assert.equal((await answer).stopReason, "end_turn");
    first.proc.stdin.end();
    await first.exited;

    const w = await AcpWorld.start({ box: first.box, server: first.server });
    world = w;
    await w.initialize();
    await w.agent.request("session/load", { sessionId, cwd: w.box.workspace, mcpServers: [] });
    // Consecutive chunks of one kind are one message.
    const said: [string, string][] = [];
    for (const u of w.updates()) {
      if (u.sessionUpdate !== "user_message_chunk" && u.sessionUpdate !== "agent_message_chunk")
        continue;
      const chunk = u.content.type === "text" ? u.content.text : "";
      const last = said.at(-1);
      if (last?.[0] === u.sessionUpdate) last[1] += chunk;
      else said.push([u.sessionUpdate, chunk]);
    }
    assert.deepEqual(said, [
      ["user_message_chunk", "answer me"],
      ["agent_message_chunk", "In English."],
      ["user_message_chunk", "in French"],
      ["agent_message_chunk", "En français."],
    ]);
  });
});

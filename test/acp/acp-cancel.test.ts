import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { held, stall, text } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

function door(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe("mc-agent acp: cancel and end of input", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("session/cancel mid-stream: the prompt answers cancelled, after its last update", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    const release = door();
    w.server.reply(held({ text: "A long reply that is cut short." }, 3, release.wait));
    const answer = w.prompt(sessionId, "talk");
    await w.until(() => w.agentText().length > 0, "a first chunk");
    await w.agent.notify("session/cancel", { sessionId });
    assert.equal((await answer).stopReason, "cancelled");
    release.open();
    const responseAt = w.seen.findIndex((s) => s.kind === "response");
    // A round trip after the answer: anything the agent still had to send would be here by now.
    await w.agent.request("session/set_mode", { sessionId, modeId: "ask" });
    assert.equal(w.seen.length, responseAt + 1, "no update after the prompt's response");
    // The session goes on: the interrupted turn was saved and another one can run.
    const history = readdirSync(join(w.box.home, "sessions")).filter((n) => n.endsWith(".jsonl"));
    assert.equal(history.length, 1);
    const records = readFileSync(join(w.box.home, "sessions", history[0] as string), "utf8");
    assert.match(records, /"type":"turn_end".*"status":"interrupted"/);
  });

  it("$/cancel_request of the prompt (the SDK's request cancellation) is taken as session/cancel", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.reply(stall({ text: "Never finished." }, 3));
    const cancellation = new AbortController();
    // The SDK's client sends `$/cancel_request {requestId}` when the signal aborts and, without
    // `stopWaitingOnCancel`, still waits for the agent's answer.
    const answer = w.agent.request(
      "session/prompt",
      { sessionId, prompt: [{ type: "text", text: "talk" }] },
      { cancellationSignal: cancellation.signal },
    );
    await w.until(() => w.agentText().length > 0, "a first chunk");
    cancellation.abort();
    assert.equal((await answer).stopReason, "cancelled");
    const records = readFileSync(join(w.box.home, "sessions", `${sessionId}.jsonl`), "utf8");
    assert.match(records, /"type":"turn_end".*"status":"interrupted"/);
    // The session goes on.
    w.server.reply(text("Again."));
    assert.equal((await w.prompt(sessionId, "again")).stopReason, "end_turn");
  });

  it("stdin closed mid-turn: the turn is saved interrupted, the lock is gone, the agent exits", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.reply(stall({ text: "Never finished." }, 3));
    void w.prompt(sessionId, "talk").catch(() => {});
    await w.until(() => w.agentText().length > 0, "a first chunk");
    const sessions = join(w.box.home, "sessions");
    assert.ok(existsSync(join(sessions, `${sessionId}.lock`)), "the turn holds its lock");
    w.proc.stdin.end();
    const exit = await w.exited;
    assert.equal(exit.code, 0, w.stderr);
    assert.equal(existsSync(join(sessions, `${sessionId}.lock`)), false);
    const records = readFileSync(join(sessions, `${sessionId}.jsonl`), "utf8")
      .trim()
      .split("\n");
    const end = JSON.parse(records.at(-1) as string);
    assert.equal(end.type, "turn_end");
    assert.equal(end.status, "interrupted");
  });
});

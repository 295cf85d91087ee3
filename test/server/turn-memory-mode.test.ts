import assert from "node:assert/strict";
import { syncBuiltinESMExports } from "node:module";
import { after, test } from "node:test";
import v8 from "node:v8";
import { sandbox } from "../../src/conformance/harness.js";
import { startChatServer, text } from "../fixtures/chat-completions-server.js";
import { writeTurnHome } from "../helpers/turn-home.js";
import { TURN_CAPS } from "../turns/turn-harness.js";

/**
 * A turn's memory mode (`--optimize-for-size`, src/boot/heap-flags.ts) goes on once the turn's
 * `turn_started` has been written, not before (src/server/handlers/turn-memory-mode.ts): set
 * right after the admission, the full collection it starts ran in that event's own path (issue
 * 44, a fresh child's first turn). Seen in-process, through the engine face a frontend in the
 * same process uses (the stdio child's own handlers and dispatcher): every V8 flag the engine
 * sets is recorded beside every event it hands over, in one order. This file is its own process.
 */
const seen: string[] = [];
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags: string) => {
  seen.push(`flag ${flags}`);
  setFlags(flags);
};
// The engine's modules import `setFlagsFromString` by name: they see the recorder.
syncBuiltinESMExports();
const { EngineFace } = await import("../../src/server/engine-face.js");

const box = sandbox("mc-memory-mode-");
const server = await startChatServer();
after(async () => {
  await server.close();
  box.cleanup();
});

test("the turn's memory mode goes on after turn_started is written, and off at its end", async () => {
  const env = writeTurnHome(box, server.baseUrl);
  const engine = new EngineFace({ cwd: box.workspace, home: box.home, env });
  try {
    await engine.request("initialize", {
      protocol_version: 1,
      client: { name: "mc-agent-tests", version: "1.0.0" },
      required_capabilities: TURN_CAPS,
    });
    await engine.request("session.create", {});
    server.reply(text("Done."));
    const { result } = engine.startTurn({ input: "Go on.", permissions: "read_only" }, (event) => {
      seen.push(`event ${event.event.type}`);
      return Promise.resolve();
    });
    assert.equal((await result).status, "completed");
  } finally {
    await engine.close();
  }
  const on = seen.indexOf("flag --optimize-for-size");
  const started = seen.indexOf("event turn_started");
  assert.ok(started >= 0, `no turn_started in ${JSON.stringify(seen)}`);
  assert.ok(on > started, `the mode went on before turn_started: ${JSON.stringify(seen)}`);
  assert.ok(seen.indexOf("event message_delta") > on, "the stream ran without the mode");
  assert.ok(seen.lastIndexOf("flag --no-optimize-for-size") > on, "the mode stayed on");
});

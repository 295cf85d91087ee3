import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { held } from "../../src/conformance/chat-server.js";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { AcpWorld } from "./acp-world.js";

/**
 * `mc-agent acp` answers an editor's `session/new` before it loads what only a prompt runs: on
 * Node 20, dist/child/acp-later.cjs, every module reached only through an `import()` (the turn
 * engine, the prompt's updates, ..., scripts/acp-later-split.js), loaded once that answer is
 * written (docs/acp.md, "Start-up"). Seen from inside the agent by a preloaded script that notes,
 * in order, each opening of that file and each line the agent writes; and from outside, a prompt
 * sent the moment the answer arrives streams its reply as before. Skipped where Node has a
 * compile cache of its own (22.1 and later: the ES module bundle, whose chunks Node's own loader
 * reads).
 */
const SKIP =
  typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function"
    ? "this Node has a compile cache (the ES module bundle)"
    : false;

const PRELOAD = `
const fs = require("node:fs");
const { appendFileSync } = fs;
const note = (line) => appendFileSync(process.env.MC_TEST_EVENTS, line + "\\n");
for (const name of ["openSync", "readFileSync"]) {
  const original = fs[name];
  fs[name] = function (path, ...rest) {
    if (typeof path === "string" && path.endsWith("acp-later.cjs")) note("open acp-later.cjs");
    return original.call(this, path, ...rest);
  };
}
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (text.includes('"result":{"sessionId"')) note("session/new answered");
  return write.call(this, chunk, ...rest);
};
`;

const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

describe("acp: the prompt's part loaded after session/new's answer", { skip: SKIP }, () => {
  it("answers session/new before loading it; a prompt sent at once streams its reply", async () => {
    const box = sandbox("mc-acp-prompt-part-");
    boxes.push(box);
    const preload = join(box.root, "preload.cjs");
    const events = join(box.root, "events.txt");
    writeFileSync(preload, PRELOAD);
    writeFileSync(events, "");
    const world = await AcpWorld.start({
      env: { NODE_OPTIONS: `--require ${preload}`, MC_TEST_EVENTS: events, TMPDIR: box.root },
    });
    try {
      await world.initialize();
      let release = () => {};
      const door = new Promise<void>((resolve) => {
        release = resolve;
      });
      world.server.reply(held({ text: "Hello right after the session." }, 3, door));
      const created = await world.newSession();
      // Sent the moment the answer is read: it finds the part loaded, or waits for it.
      const answer = world.prompt(created.sessionId, "Say hello");
      await world.until(() => world.agentText().length > 0, "a first chunk");
      assert.notEqual(world.agentText(), "Hello right after the session.", "streamed");
      release();
      assert.equal((await answer).stopReason, "end_turn");
      assert.equal(world.agentText(), "Hello right after the session.");
      const noted = readFileSync(events, "utf8").trim().split("\n");
      const answered = noted.indexOf("session/new answered");
      const loaded = noted.indexOf("open acp-later.cjs");
      assert.ok(answered >= 0, noted.join(", "));
      assert.ok(loaded >= 0, `the prompt's part was not loaded apart: ${noted.join(", ")}`);
      assert.ok(loaded > answered, `loaded before the answer: ${noted.join(", ")}`);
    } finally {
      await world.close();
    }
  });
});

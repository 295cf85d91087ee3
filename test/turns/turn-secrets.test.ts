/**
 * No provider key reaches a command, not even through another process's start-up environment:
 * a frontend runs `mc-agent stdio` through the bin (its launcher hands the keys over fd 3), the
 * SDK spawns its own child the same way, and a command under full_access that reads
 * /proc/$PPID/environ, and the environ of every mc-agent process pgrep finds, sees no key.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { AgentClient } from "../../src/client/index.js";
import { answer, text } from "../fixtures/chat-completions-server.js";
import { CHILD_BIN } from "../helpers/child.js";
import { resultText, runApproving } from "./tool-turns.js";
import { type TurnWorld, turnWorld } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CONFIGURED = "sk-configured-demo-key-must-not-leak";
const STANDARD = "sk-standard-openai-key-must-not-leak";
const READ_ENVIRONS = [
  'echo "parent=$PPID"',
  "tr '\\0' '\\n' < /proc/$PPID/environ",
  "for p in $(pgrep -f mc-agent); do echo \"== $p\"; tr '\\0' '\\n' < /proc/$p/environ; done",
].join("; ");

test("a command reads no key in its parent's environ nor in any mc-agent process's", {
  skip: process.platform !== "linux" && "reads /proc",
}, async () => {
  const keys = { DEMO_KEY: CONFIGURED, OPENAI_API_KEY: STANDARD };
  // The way frontends start it: the bin itself, through its #! line (npm links it so).
  world = await turnWorld({ env: keys, child: { command: [CHILD_BIN, "stdio"] } });
  const { child, server } = world;
  // Another workspace's child on the same home, started by the SDK (as the CLI does).
  const otherCwd = mkdtempSync(join(tmpdir(), "mc-secrets-other-"));
  const other = await AgentClient.spawn({
    cwd: otherCwd,
    env: { PATH: process.env.PATH, HOME: world.box.home, MC_HOME: world.box.home, ...keys },
    capabilities: ["session.list"],
  });
  try {
    await child.call("session.create", {});
    const calls = [{ name: "shell", input: { command: READ_ENVIRONS }, id: "c_env" }];
    server.reply(answer({ calls }), text("Read them."));
    const run = await runApproving(child, "read the environments", "full_access", []);
    assert.equal(run.result.status, "completed");
    const seen = resultText(server.requests[1], "c_env");
    // The command did read both environs: its parent's, and the SDK-started child's.
    assert.match(seen, new RegExp(`^parent=${child.pid}$`, "m"));
    assert.match(seen, /^MC_HOME=/m);
    assert.match(seen, new RegExp(`^== ${other.pid}$`, "m"));
    for (const key of Object.values(keys)) {
      assert.ok(!seen.includes(key), "a key reached the command");
      assert.ok(!child.rawLines.join("\n").includes(key), "a key reached a frame");
    }
    // The keys were handed over, not lost: the model call carried the configured one.
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${CONFIGURED}`);
  } finally {
    await other.close();
    rmSync(otherCwd, { recursive: true, force: true });
  }
});

/**
 * Chat asks for each optional capability on its own (SpawnOptions.optional, docs/cli.md, "Slash
 * commands"): against the real child behind a filter that refuses `session.search` at
 * initialize, /rename and /status's cost (`session.manage`) still work, /search says the backend
 * cannot, and /help lists only what was granted. Piped, with a loopback model.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { text } from "../fixtures/chat-completions-server.js";
import { PACKAGE_ROOT } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { cliTurnWorld } from "./cli-turn-world.js";

const REFUSING_CHILD = [
  process.execPath,
  join(PACKAGE_ROOT, "dist", "test", "fixtures", "refusing-child.js"),
];

describe("mc-agent chat: optional capabilities, each on its own", () => {
  const world = cliTurnWorld("mc-cli-chat-optional-");

  it("without session.search, /rename and /status's cost still work", async () => {
    world.server.reply(text("Otters hold hands."));
    const log = join(world.box.root, "initialize.log");
    const run = await runCli(["chat"], {
      cwd: world.box.workspace,
      env: {
        ...world.env,
        MC_AGENT_CHILD: JSON.stringify(REFUSING_CHILD),
        REFUSE_CAPABILITIES: "session.search",
        REFUSE_LOG: log,
      },
      input: "Tell me about otters\n/rename Otter facts\n/status\n/search otters\n/help\n/exit\n",
      timeoutMs: 40_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Otters hold hands.\n");
    assert.match(run.stderr, /\nRenamed: Otter facts\n/);
    assert.match(run.stderr, /\nUsed: 1 turn\(s\), \d+ tokens in, \d+ out; cost /);
    assert.match(run.stderr, /\nThis backend cannot search sessions\.\n/);
    assert.match(run.stderr, /\n {2}\/rename <title> /, "/help lists what was granted");
    assert.ok(!run.stderr.includes("  /search <text>"), "/help leaves out what was not");
    const asked = readFileSync(log, "utf8").trim().split("\n");
    const granted = asked.at(-1)?.split(",") ?? [];
    assert.ok(asked.length > 1, "the first ask, with session.search, was refused");
    assert.ok(!granted.includes("session.search"));
    for (const kept of ["session.manage", "skills", "commands", "attachments"])
      assert.ok(granted.includes(kept), `${kept} is kept`);
  });
});

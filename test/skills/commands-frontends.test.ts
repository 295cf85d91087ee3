/**
 * One custom command through every frontend (docs/skills.md): `/fix args` typed into `mc-agent
 * chat` (piped), sent as an ACP prompt by the ACP SDK's own client, and sent as turn.start's
 * `command` (commands-protocol.test.ts) reach the model as the same text, expanded once, in the
 * child. The frontends' own commands win over a file of the same name.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { startChatServer, text } from "../../src/conformance/chat-server.js";
import { writeTurnHome as writeKitHome } from "../../src/conformance/turn-world.js";
import { AcpWorld } from "../acp/acp-world.js";
import { sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { writeTurnHome } from "../helpers/turn-home.js";
import type { Loose } from "../turns/tool-turns.js";
import { FIX_ARGUMENTS, FIX_EXPANDED, writeFix } from "./command-expansion.js";
import { writeCommand } from "./skill-files.js";

function lastUser(request: Loose): string {
  return request.body.messages.filter((m: Loose) => m.role === "user").at(-1).content;
}

describe("a custom command through chat and ACP", () => {
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it("chat: `/fix args` piped in is expanded by the child; /exit stays the chat's own", async () => {
    const box = sandbox("mc-cmd-chat-");
    const server = await startChatServer();
    closers.push(
      () => box.cleanup(),
      () => server.close(),
    );
    const env = writeTurnHome(box, server.baseUrl);
    writeFix(box.workspace);
    writeCommand(join(box.workspace, ".mc/commands"), "exit", "Never sent.");
    server.reply(text("Fixed."));
    const run = await runCli(["chat"], {
      cwd: box.workspace,
      env,
      input: `/fix ${FIX_ARGUMENTS}\n/exit\nnot sent\n`,
      timeoutMs: 60_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 1, "one turn: /exit is the chat's own and ends it");
    assert.equal(lastUser(server.requests[0]), FIX_EXPANDED);
    assert.match(run.stdout, /Fixed\./);
  });

  it("ACP: listed in available_commands_update after /undo and /rename (which win); a prompt `/fix args` is expanded by the child", async () => {
    const box = sandbox("mc-cmd-acp-");
    const server = await startChatServer();
    writeKitHome(box, server.baseUrl);
    writeFix(box.workspace);
    writeCommand(join(box.workspace, ".mc/commands"), "rename", "Never sent.");
    const world = await AcpWorld.start({ box, server });
    closers.push(() => world.close());
    await world.initialize();
    const session = await world.newSession();
    const advertised = await waitFor(() => {
      const update = world.updates("available_commands_update").at(-1);
      return update?.sessionUpdate === "available_commands_update" ? update : null;
    });
    const names = advertised.availableCommands.map((c) => c.name);
    assert.deepEqual(names.filter((n) => n === "rename").length, 1, "one /rename: the agent's own");
    assert.ok(names.indexOf("fix") > names.indexOf("rename"));
    const fix = advertised.availableCommands.find((c) => c.name === "fix");
    assert.deepEqual(
      { description: fix?.description, input: fix?.input },
      { description: "Fix an issue", input: { hint: "<issue> [priority]" } },
    );
    server.reply(text("Fixed."));
    const answer = await world.prompt(session.sessionId, `/fix ${FIX_ARGUMENTS}`);
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(lastUser(server.requests[0]), FIX_EXPANDED);
  });
});

async function waitFor<T>(probe: () => T | null, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error("not seen in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

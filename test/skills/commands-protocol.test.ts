/**
 * Custom commands over the protocol (docs/skills.md): commands.list with each place and its
 * precedence, the command file's size at its bound and one past it, turn.start's `command`
 * expanded in the child ($ARGUMENTS, $1..$9), and every refusal before anything is saved.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { COMMAND_FILE_BYTES } from "../../src/protocol/schemas/skills.js";
import { TURN_EXTENSION } from "../../src/protocol/schemas/turns.js";
import { text } from "../fixtures/chat-completions-server.js";
import { startReady } from "../helpers/child.js";
import type { Loose } from "../turns/tool-turns.js";
import { TURN_CAPS, type TurnWorld, turnWorld } from "../turns/turn-harness.js";
import { FIX_ARGUMENTS, FIX_EXPANDED, writeFix } from "./command-expansion.js";
import { writeCommand } from "./skill-files.js";

const CAPS = [...TURN_CAPS, "commands", "settings.check"];

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

let ids = 0;
/** turn.start with these params; the response frame. */
async function start(w: TurnWorld, params: Record<string, unknown>) {
  const id = `c-${++ids}`;
  const response = w.child.waitFor((f) => f.id === id, 60_000);
  w.child.send({ id, method: "turn.start", params });
  return { id, frame: await response };
}

function lastUser(request: Loose): string {
  return request.body.messages.filter((m: Loose) => m.role === "user").at(-1).content;
}

describe("custom commands over the protocol", () => {
  test("commands.list: each place, the first place wins, the file's size at its bound and past it", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const { workspace, home } = world.box;
    writeCommand(join(workspace, ".mc/commands"), "both", "from .mc");
    writeCommand(join(workspace, ".claude/commands"), "both", "from .claude");
    writeCommand(
      join(workspace, ".claude/commands"),
      "claude-only",
      "---\ndescription: Claude's\n---\nx",
    );
    writeCommand(join(home, "commands"), "claude-only", "the user's");
    writeCommand(join(home, "commands"), "home-only", "x");
    writeCommand(join(home, "no-claude/commands"), "user-claude", "x");
    // At the bound: the front matter counts (the whole file is read).
    writeCommand(join(workspace, ".mc/commands"), "at-bound", "a".repeat(COMMAND_FILE_BYTES));
    writeCommand(join(workspace, ".mc/commands"), "past-bound", "a".repeat(COMMAND_FILE_BYTES + 1));
    writeCommand(join(workspace, ".mc/commands"), "bad-front", "---\ndescription: [x\n---\nx");
    writeCommand(join(workspace, ".mc/commands"), "bad name", "x");
    const { commands } = await world.child.call("commands.list", {});
    assert.deepEqual(
      commands.map((c: Loose) => [c.name, c.place, c.scope, c.description]),
      [
        ["at-bound", ".mc/commands", "workspace", null],
        ["both", ".mc/commands", "workspace", null],
        ["claude-only", ".claude/commands", "workspace", "Claude's"],
        ["home-only", "MC_HOME/commands", "user", null],
        ["user-claude", "~/.claude/commands", "user", null],
      ],
    );
    const check = await world.child.call("settings.check", {});
    assert.deepEqual(check.command_problems, [
      { place: ".mc/commands", entry: "bad name.md", reason: "name_invalid" },
      { place: ".mc/commands", entry: "bad-front.md", reason: "front_matter_invalid" },
      { place: ".mc/commands", entry: "past-bound.md", reason: "too_large" },
    ]);
  });

  test("turn.start's command: expanded in the child, as the model and the history see it", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    writeFix(w.box.workspace);
    const { session } = await w.child.call("session.create", {});
    w.server.reply(text("Fixed."));
    const started = await start(w, { command: { name: "fix", arguments: FIX_ARGUMENTS } });
    assert.equal((started.frame.result as Loose).status, "completed");
    assert.equal(lastUser(w.server.requests[0]), FIX_EXPANDED);
    const history = await w.child.call("session.history", { id: session.id });
    const user = (history.events as Loose[]).find((e) => e.type === "user_message");
    assert.equal(user.text, FIX_EXPANDED, "the history keeps what the model saw");
  });

  test("refusals: unknown name, both or neither of input and command, too long, not negotiated", async () => {
    world = await turnWorld({ capabilities: CAPS });
    const w = world;
    writeFix(w.box.workspace);
    const four = "$ARGUMENTS".repeat(4);
    writeCommand(join(w.box.workspace, ".mc/commands"), "big", four);
    writeCommand(join(w.box.workspace, ".mc/commands"), "bigger", `${four}x`);
    writeCommand(
      join(w.box.workspace, ".mc/commands"),
      "empty",
      "---\ndescription: nothing\n---\n  \n",
    );
    await w.child.call("session.create", {});
    const code = async (params: Record<string, unknown>) => {
      const { frame } = await start(w, params);
      return (frame.error as Loose)?.code;
    };
    assert.equal(await code({ command: { name: "nope", arguments: "" } }), "command_missing");
    assert.equal(
      await code({ input: "x", command: { name: "fix", arguments: "" } }),
      "invalid_params",
    );
    assert.equal(await code({}), "invalid_params");
    assert.equal(await code({ command: { name: "empty", arguments: "" } }), "invalid_params");
    // Four times the arguments: input_bytes exactly runs; one byte more is refused.
    const quarter = "q".repeat(TURN_EXTENSION.input_bytes / 4);
    assert.equal(await code({ command: { name: "bigger", arguments: quarter } }), "invalid_params");
    assert.equal(w.server.requests.length, 0, "nothing was sent");
    const sessions = join(w.box.home, "sessions");
    assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, "nothing was saved");
    w.server.reply(text("Long."));
    const { frame } = await start(w, { command: { name: "big", arguments: quarter } });
    assert.equal((frame.result as Loose)?.status, "completed", JSON.stringify(frame.error));
    assert.equal(lastUser(w.server.requests[0]).length, TURN_EXTENSION.input_bytes);
    await w.child.close();
    w.child = await startReady(w.box, TURN_CAPS, {
      testMethods: true,
      env: { DEMO_KEY: "sk-test-secret-key" },
    });
    await w.child.call("session.create", {});
    assert.equal(await code({ command: { name: "fix", arguments: "" } }), "unsupported_capability");
  });
});

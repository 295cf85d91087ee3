/**
 * Black box: the SDK's own client drives `mc-agent acp`; `/undo` is an available command
 * (`available_commands_update`), run by the agent through our `turn.revert` (docs/acp.md,
 * "Undo"): the files go back byte for byte, the model is not called, and the next prompt's
 * context leaves the undone turn out.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { text, toolCall } from "../../src/conformance/chat-server.js";
import { AcpWorld } from "./acp-world.js";

describe("mc-agent acp: /undo", () => {
  let world: AcpWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  async function sessionWithEdits(w: AcpWorld) {
    await w.initialize();
    const { sessionId } = await w.newSession();
    await w.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    await w.until(
      () => w.updates("available_commands_update").length === 1,
      "the available commands",
    );
    const [advertised] = w.updates("available_commands_update");
    assert.ok(advertised?.sessionUpdate === "available_commands_update");
    assert.deepEqual(
      advertised.availableCommands.map((c) => c.name),
      ["undo", "rename"],
    );
    writeFileSync(join(w.box.workspace, "kept.txt"), "before\n");
    w.server.reply(text("Nothing changed."));
    await w.prompt(sessionId, "first: look around");
    w.server.reply(
      toolCall("write_file", { path: "kept.txt", content: "changed by the turn\n" }),
      toolCall("shell", { command: "echo new > made.txt && rm -f gone.txt" }),
      text("Edited."),
    );
    writeFileSync(join(w.box.workspace, "gone.txt"), "to be removed\n");
    // gone.txt exists before the second turn starts, so its checkpoint holds it.
    await w.prompt(sessionId, "second: edit things");
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "changed by the turn\n");
    assert.ok(existsSync(join(w.box.workspace, "made.txt")));
    assert.equal(existsSync(join(w.box.workspace, "gone.txt")), false);
    return sessionId;
  }

  it("is advertised, restores the last turn's files exactly without calling the model, and the next prompt no longer sees that turn", async () => {
    world = await AcpWorld.start();
    const w = world;
    const sessionId = await sessionWithEdits(w);
    const requestsBefore = w.server.requests.length;
    const chunksBefore = w.updates("agent_message_chunk").length;
    const answer = await w.prompt(sessionId, "/undo");
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(w.server.requests.length, requestsBefore, "the model was not called");
    const reply = w.updates("agent_message_chunk").slice(chunksBefore);
    const said = reply
      .map((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? u.content.text
          : "",
      )
      .join("");
    assert.match(said, /Undid the turn "second: edit things"/);
    assert.match(said, /kept\.txt \(restored\)/);
    assert.match(said, /made\.txt \(removed\)/);
    assert.match(said, /gone\.txt \(recreated\)/);
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "before\n");
    assert.equal(readFileSync(join(w.box.workspace, "gone.txt"), "utf8"), "to be removed\n");
    assert.equal(existsSync(join(w.box.workspace, "made.txt")), false);
    w.server.reply(text("Third answer."));
    await w.prompt(sessionId, "third question");
    const messages = JSON.stringify(w.server.requests.at(-1)?.body?.messages);
    assert.match(messages, /first: look around/);
    assert.doesNotMatch(messages, /second: edit things/);
    assert.doesNotMatch(messages, /\/undo/);
    // The undone turn is gone from the live ones: the next /undo undoes the first turn.
    await w.prompt(sessionId, "/undo");
    assert.match(w.agentText(), /Undid the turn "third question"/);
  });

  it("a file changed outside the session is named and kept; /undo force overwrites it", async () => {
    world = await AcpWorld.start();
    const w = world;
    const sessionId = await sessionWithEdits(w);
    writeFileSync(join(w.box.workspace, "kept.txt"), "edited by the user\n");
    await w.prompt(sessionId, "/undo");
    assert.match(w.agentText(), /Nothing was undone: a file changed since that turn ended/);
    assert.match(w.agentText(), /kept\.txt/);
    assert.match(w.agentText(), /\/undo force/);
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "edited by the user\n");
    assert.ok(existsSync(join(w.box.workspace, "made.txt")), "nothing was reverted");
    await w.prompt(sessionId, "/undo force");
    assert.match(w.agentText(), /Undid the turn "second: edit things"/);
    assert.equal(readFileSync(join(w.box.workspace, "kept.txt"), "utf8"), "before\n");
    assert.equal(existsSync(join(w.box.workspace, "made.txt")), false);
  });

  it("with no turn, says there is nothing to undo; a load advertises the command again", async () => {
    world = await AcpWorld.start();
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    const answer = await w.prompt(sessionId, "  /undo  ");
    assert.equal(answer.stopReason, "end_turn");
    assert.match(w.agentText(), /Nothing to undo/);
    assert.equal(w.server.requests.length, 0);
    // Not the command: sent to the model as a prompt.
    w.server.reply(text("Answered."));
    await w.prompt(sessionId, "/undo it all please");
    assert.equal(w.server.requests.length, 1);
    await w.agent.request("session/close", { sessionId });
    await w.agent.request("session/load", { sessionId, cwd: w.box.workspace, mcpServers: [] });
    await w.until(
      () => w.updates("available_commands_update").length === 2,
      "the commands after the load",
    );
  });

  it("without git on PATH, /undo is not advertised (only /rename) and answers that undo is unavailable", async () => {
    const bin = join(sandboxBin(), "bin");
    world = await AcpWorld.start({ path: bin });
    const w = world;
    await w.initialize();
    const { sessionId } = await w.newSession();
    w.server.reply(text("Answered."));
    await w.prompt(sessionId, "a turn without a checkpoint");
    await w.prompt(sessionId, "/undo");
    assert.match(w.agentText(), /Undo is unavailable here/);
    const advertised = w.updates("available_commands_update");
    assert.equal(advertised.length, 1);
    const [only] = advertised;
    assert.ok(only?.sessionUpdate === "available_commands_update");
    assert.deepEqual(
      only.availableCommands.map((c) => c.name),
      ["rename"],
      "only /rename without git",
    );
  });
});

/** A folder holding only `node` (the launcher execs it): no git. */
function sandboxBin(): string {
  const root = mkdtempSync(join(tmpdir(), "mc-acp-nogit-"));
  mkdirSync(join(root, "bin"));
  symlinkSync(process.execPath, join(root, "bin", "node"));
  return root;
}

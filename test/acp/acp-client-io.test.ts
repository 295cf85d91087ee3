/**
 * Black box: the SDK's own client, offering `fs/*` and `terminal/*` (test-editor.ts, on the real
 * workspace and real processes), drives the spawned `mc-agent acp`; the loopback model reads a
 * file, edits it and runs a command. The client's handlers are what did it: the model read the
 * unsaved buffer the file on disk does not have, the edit landed through the client, the command
 * ran in the client's terminal and its tool call shows that terminal. Offering nothing, our own
 * tools do the same work and the client hears of none of it.
 */
import assert from "node:assert/strict";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { text, toolCall } from "../../src/conformance/chat-server.js";
import { KIT_KEY } from "../../src/conformance/turn-world.js";
import { AcpWorld } from "./acp-world.js";
import { type Offer, TestEditor } from "./test-editor.js";

/** What the model was shown as the result of its n-th call (the tool message of request n+1). */
function toolResult(world: AcpWorld, call: number): string {
  const messages = world.server.requests[call + 1]?.body?.messages ?? [];
  const last = messages.at(-1);
  assert.equal(last?.role, "tool");
  return String(last.content);
}

async function runScript(offer: Offer) {
  const editor = new TestEditor(offer);
  const world = await AcpWorld.start({ editor });
  const workspace = realpathSync(world.box.workspace);
  const file = join(workspace, "notes.txt");
  writeFileSync(file, "saved on disk\n");
  editor.buffers.set(file, "unsaved buffer\n");
  world.server.reply(
    toolCall("read_file", { path: "notes.txt" }),
    toolCall("edit_file", { path: "notes.txt", old_text: "saved on disk", new_text: "edited" }),
    toolCall("edit_file", { path: "notes.txt", old_text: "unsaved buffer", new_text: "edited" }),
    toolCall("shell", { command: "echo ran-in-$PWD" }),
    text("Done."),
  );
  await world.initialize();
  const { sessionId } = await world.newSession();
  await world.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
  const answer = await world.prompt(sessionId, "Read, edit, run");
  return { editor, world, workspace, file, answer };
}

describe("mc-agent acp: the client's file system and terminals", () => {
  let world: AcpWorld | undefined;
  let editor: TestEditor | undefined;
  afterEach(async () => {
    editor?.close();
    await world?.close();
  });

  it("reads the unsaved buffer, edits through the client and runs the command in its terminal", async () => {
    const run = await runScript({ read: true, write: true, terminal: true });
    ({ world, editor } = run);
    assert.equal(run.answer.stopReason, "end_turn");
    // The model saw the editor's buffer, not the file on disk.
    assert.equal(toolResult(run.world, 0), "     1\tunsaved buffer");
    assert.ok(run.editor.reads.some((read) => read.path === run.file));
    // The edit planned on the disk's text finds nothing in the buffer; the one on the buffer lands.
    assert.equal(toolResult(run.world, 1), "old_text was not found in notes.txt");
    assert.match(toolResult(run.world, 2), /^Edited notes\.txt: 1 replacement/);
    assert.deepEqual(
      run.editor.writes.map((write) => [write.path, write.content]),
      [[run.file, "edited\n"]],
    );
    assert.equal(readFileSync(run.file, "utf8"), "edited\n");
    // The command ran in the client's terminal, in the workspace, and was released.
    assert.equal(run.editor.created.length, 1);
    assert.equal(run.editor.created[0]?.args?.at(-1), "echo ran-in-$PWD");
    assert.equal(run.editor.created[0]?.cwd, run.workspace);
    assert.deepEqual(run.editor.released, ["term-1"]);
    assert.equal(toolResult(run.world, 3), `ran-in-${run.workspace}\n[exit code 0]`);
    // Its tool call shows the terminal, from creation to the end.
    const shellCall = run.world
      .updates("tool_call")
      .find((update) => update.sessionUpdate === "tool_call" && update.kind === "execute");
    assert.ok(shellCall && shellCall.sessionUpdate === "tool_call");
    const terminalUpdates = run.world
      .updates("tool_call_update")
      .filter(
        (update) =>
          update.sessionUpdate === "tool_call_update" && update.toolCallId === shellCall.toolCallId,
      );
    // First the call starts running (no content yet), then it shows the terminal to the end.
    const started = terminalUpdates.shift();
    assert.deepEqual(started, {
      sessionUpdate: "tool_call_update",
      toolCallId: shellCall.toolCallId,
      status: "in_progress",
    });
    assert.ok(terminalUpdates.length >= 2);
    for (const update of terminalUpdates) {
      assert.ok(update.sessionUpdate === "tool_call_update");
      assert.deepEqual(update.content?.[0], { type: "terminal", terminalId: "term-1" });
    }
    const last = terminalUpdates.at(-1);
    assert.equal(last?.sessionUpdate === "tool_call_update" && last.status, "completed");
  });

  it("without the capabilities, our own tools run and the client is never asked", async () => {
    const run = await runScript({});
    ({ world, editor } = run);
    assert.equal(run.answer.stopReason, "end_turn");
    assert.equal(toolResult(run.world, 0), "     1\tsaved on disk");
    assert.match(toolResult(run.world, 1), /^Edited notes\.txt: 1 replacement/);
    assert.equal(toolResult(run.world, 2), "old_text was not found in notes.txt");
    assert.equal(readFileSync(run.file, "utf8"), "edited\n");
    assert.equal(toolResult(run.world, 3), `ran-in-${run.workspace}\n[exit code 0]`);
    assert.equal(run.editor.reads.length + run.editor.writes.length + run.editor.created.length, 0);
    const content = JSON.stringify(run.world.updates("tool_call_update"));
    assert.ok(!content.includes('"terminal"'));
    assert.ok(content.includes(`ran-in-${run.workspace}`));
  });

  it("approvals stay ours: a rejected edit never reaches the client, an allowed command runs in its terminal", async () => {
    editor = new TestEditor({ read: true, write: true, terminal: true });
    world = await AcpWorld.start({ editor });
    const current = world;
    const file = join(realpathSync(current.box.workspace), "notes.txt");
    writeFileSync(file, "disk\n");
    editor.buffers.set(file, "buffer\n");
    const asked: string[] = [];
    current.permission = (request) => {
      const kind = request.toolCall.kind ?? "other";
      asked.push(kind);
      return {
        outcome: { outcome: "selected", optionId: kind === "edit" ? "reject_once" : "allow_once" },
      };
    };
    current.server.reply(
      toolCall("edit_file", { path: "notes.txt", old_text: "buffer", new_text: "changed" }),
      toolCall("shell", { command: "echo allowed" }),
      text("Done."),
    );
    await current.initialize();
    const { sessionId } = await current.newSession(); // mode "ask": both are asked
    assert.equal((await current.prompt(sessionId, "Edit and run")).stopReason, "end_turn");
    assert.deepEqual(asked, ["edit", "execute"]);
    assert.equal(toolResult(current, 0), "denied by the user");
    assert.equal(editor.writes.length, 0);
    assert.equal(readFileSync(file, "utf8"), "disk\n");
    assert.equal(editor.buffers.get(file), "buffer\n");
    assert.equal(editor.created.length, 1);
    assert.equal(toolResult(current, 1), "allowed\n[exit code 0]");
  });

  it("a configured api_key_env the editor has is blanked in its terminal, as shell removes it", async () => {
    // The editor started the agent with the key in its own environment (MC_KIT_KEY is the kit
    // provider's api_key_env in config.json, not one of the standard variables), so its
    // terminals inherit it unless the agent blanks it.
    editor = new TestEditor({ terminal: true }, { ...process.env, MC_KIT_KEY: KIT_KEY });
    world = await AcpWorld.start({ editor });
    world.server.reply(
      toolCall("shell", { command: 'echo "[$MC_KIT_KEY][$OPENAI_API_KEY]"' }),
      text("Done."),
    );
    await world.initialize();
    const { sessionId } = await world.newSession();
    await world.agent.request("session/set_mode", { sessionId, modeId: "full_access" });
    assert.equal((await world.prompt(sessionId, "Show the key")).stopReason, "end_turn");
    assert.equal(editor.created.length, 1);
    assert.equal(editor.envOf(0).get("MC_KIT_KEY"), "");
    assert.equal(editor.envOf(0).get("OPENAI_API_KEY"), "");
    assert.equal(toolResult(world, 0), "[][]\n[exit code 0]");
  });
});

/**
 * The tools through an ACP client's file system and terminals (src/acp/client-tools.ts), with the
 * real SDK on both sides: the agent side's context calls the test editor's handlers over
 * ndJsonStream. The editor works on a real temp folder and runs real processes.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import * as acp from "@agentclientprotocol/sdk";
import { clientToolHostFactory } from "../../src/acp/client-tools.js";
import type { ToolContext } from "../../src/agent/tools/tool.js";
import {
  call,
  context,
  plan,
  put,
  type Streamed,
  tempWorkspace,
  toolError,
  within,
} from "../agent/tools/fixture.js";
import { connectInProcess, type Offer, TestEditor } from "./test-editor.js";

const ALL: Offer = { read: true, write: true, terminal: true };

interface World {
  workspace: string;
  outside: string;
  editor: TestEditor;
  ctx: ToolContext;
  streamed: Streamed[];
  terminals: { itemId: string | null; terminalId: string }[];
}

function world(t: TestContext, offer: Offer, overrides: Partial<ToolContext> = {}): World {
  const { workspace, outside } = tempWorkspace(t);
  const editor = new TestEditor(offer);
  const joined = connectInProcess(acp.agent({ name: "mc-agent-test" }), editor.app());
  t.after(() => {
    editor.close();
    joined.client.close();
    joined.agent.close();
  });
  const terminals: World["terminals"] = [];
  const host = clientToolHostFactory(
    joined.agent.client,
    editor.capabilities(),
    "session-1",
    async (itemId, terminalId) => {
      terminals.push({ itemId, terminalId });
    },
  );
  const streamed: Streamed[] = [];
  const ctx = context(workspace, { host, itemId: "item_7", streamed, ...overrides });
  return { workspace, outside, editor, ctx, streamed, terminals };
}

test("only what the client offers is used; nothing offered gives no host", () => {
  const client = { request: () => Promise.reject(new Error("never called")) };
  const host = (capabilities: acp.ClientCapabilities | undefined) =>
    clientToolHostFactory(client, capabilities, "s", async () => {});
  assert.equal(host({}), undefined);
  assert.equal(host(undefined), undefined);
  const readOnly = host({ fs: { readTextFile: true, writeTextFile: false }, terminal: false });
  assert.deepEqual(Object.keys(readOnly ?? {}), ["readTextFile"]);
  const terminalOnly = host({ terminal: true });
  assert.deepEqual(Object.keys(terminalOnly ?? {}), ["createTerminal"]);
});

test("read_file shows the editor's unsaved buffer, asking for the lines it may show and one more", async (t) => {
  const w = world(t, ALL);
  const file = put(w.workspace, "src/app.ts", "on disk\n");
  w.editor.buffers.set(file, "one\ntwo\nthree\nfour\n");
  const all = await within(call("read_file", { path: "src/app.ts" }, w.ctx));
  assert.equal(all.output, "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour");
  assert.deepEqual(w.editor.reads.at(-1), {
    sessionId: "session-1",
    path: file,
    line: 1,
    limit: 2001,
  });
  const part = await within(call("read_file", { path: "src/app.ts", offset: 2, limit: 2 }, w.ctx));
  assert.equal(
    part.output,
    "     2\ttwo\n     3\tthree\n[showing lines 2-3; more lines follow: read on with offset 4]",
  );
  const tail = await within(call("read_file", { path: "src/app.ts", offset: 4, limit: 2 }, w.ctx));
  assert.equal(tail.output, "     4\tfour");
  const past = await within(toolError("read_file", { path: "src/app.ts", offset: 9 }, w.ctx));
  assert.equal(past, "offset 9 is past the end of src/app.ts (4 lines)");
  assert.equal(readFileSync(file, "utf8"), "on disk\n"); // reads change nothing
});

test("read_file through the editor keeps our bounds and refusals", async (t) => {
  const w = world(t, { read: true });
  const file = put(w.workspace, "big.txt", "");
  w.editor.buffers.set(file, `${"x".repeat(300 * 1024)}\nnext\n`);
  const long = await within(call("read_file", { path: "big.txt" }, w.ctx));
  assert.match(
    long.output,
    /\[line 1 is longer than 262144 bytes and was cut; read on with offset 2\]$/,
  );
  const bin = put(w.workspace, "bin.dat", "");
  w.editor.buffers.set(bin, "a\0b");
  assert.equal(
    await toolError("read_file", { path: "bin.dat" }, w.ctx),
    "bin.dat is a binary file",
  );
  put(w.workspace, "folder/x", "");
  assert.equal(
    await toolError("read_file", { path: "folder" }, w.ctx),
    "folder is not a regular file (use list_dir for folders)",
  );
  // Confinement is ours: the editor is never asked for a path outside the workspace.
  const reads = w.editor.reads.length;
  put(w.outside, "secret.txt", "secret");
  assert.equal(
    await toolError("read_file", { path: "../outside/secret.txt" }, w.ctx),
    "../outside/secret.txt is outside the workspace",
  );
  assert.equal(w.editor.reads.length, reads);
});

test("a refusal by the editor is a tool error that names only the model's path", async (t) => {
  const w = world(t, ALL);
  const file = put(w.workspace, "notes.md", "a\n");
  w.editor.refuse.add(file);
  const read = await toolError("read_file", { path: "notes.md" }, w.ctx);
  assert.equal(read, "notes.md: the editor could not read it");
  assert.ok(!read.includes(w.workspace));
  const edit = await toolError(
    "edit_file",
    { path: "notes.md", old_text: "a", new_text: "b" },
    w.ctx,
  );
  assert.equal(edit, "notes.md: the editor could not read it");
  w.editor.refuse.clear();
  const prepared = await planned(w, "write_file", { path: "notes.md", content: "new\n" });
  w.editor.refuseWrites.add(file);
  await assert.rejects(prepared.execute(w.ctx), {
    message: "could not write notes.md: the editor refused the write",
  });
  assert.equal(readFileSync(file, "utf8"), "a\n");
});

test("edit_file plans on the unsaved buffer and writes through the editor", async (t) => {
  const w = world(t, ALL);
  const file = put(w.workspace, "src/app.ts", "const a = 1;\n");
  w.editor.buffers.set(file, "const a = 1;\nconst b = 2;\n");
  const prepared = await planned(w, "edit_file", {
    path: "src/app.ts",
    old_text: "const b = 2;",
    new_text: "const b = 3;",
  });
  assert.equal(
    prepared.approval?.diff,
    "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n",
  );
  assert.equal(w.editor.writes.length, 0); // planning writes nothing
  const result = await within(prepared.execute(w.ctx));
  assert.equal(result.status, "completed");
  assert.deepEqual(w.editor.writes, [
    { sessionId: "session-1", path: file, content: "const a = 1;\nconst b = 3;\n" },
  ]);
  assert.equal(readFileSync(file, "utf8"), "const a = 1;\nconst b = 3;\n");
});

test("an edit whose buffer changed while its approval waited is refused, and nothing is written", async (t) => {
  const w = world(t, ALL);
  const file = put(w.workspace, "a.txt", "x\n");
  w.editor.buffers.set(file, "one\n");
  const prepared = await planned(w, "edit_file", {
    path: "a.txt",
    old_text: "one",
    new_text: "two",
  });
  w.editor.buffers.set(file, "one\nthe user typed\n");
  await assert.rejects(prepared.execute(w.ctx), {
    message: "a.txt changed since this edit was prepared; read it again",
  });
  assert.equal(w.editor.writes.length, 0);
  assert.equal(readFileSync(file, "utf8"), "x\n");
});

test("an edit interrupted before its execution writes nothing through the editor", async (t) => {
  const controller = new AbortController();
  const w = world(t, ALL, { signal: controller.signal });
  const file = put(w.workspace, "a.txt", "one\n");
  const prepared = await planned(w, "edit_file", {
    path: "a.txt",
    old_text: "one",
    new_text: "two",
  });
  controller.abort();
  await assert.rejects(prepared.execute(w.ctx), { message: "a.txt was not written: interrupted" });
  assert.equal(w.editor.writes.length, 0);
  assert.equal(readFileSync(file, "utf8"), "one\n");
});

test("write_file creates a new file's folders itself, then writes through the editor", async (t) => {
  const w = world(t, ALL);
  const result = await within(
    call("write_file", { path: "new/deep/file.ts", content: "hi\n" }, w.ctx),
  );
  assert.equal(result.output, "Created new/deep/file.ts (1 lines, +1 -0)");
  const target = join(w.workspace, "new/deep/file.ts");
  assert.deepEqual(w.editor.writes, [{ sessionId: "session-1", path: target, content: "hi\n" }]);
  assert.equal(readFileSync(target, "utf8"), "hi\n");
  // Still ours: writes under .git/ are refused before the editor hears of them.
  assert.equal(
    await toolError("write_file", { path: ".git/config", content: "x" }, w.ctx),
    ".git/config: writes under .git/ and .mc/ are refused",
  );
  assert.equal(w.editor.writes.length, 1);
});

test("with reads offered but not writes, an edit planned on an unsaved buffer is refused, not written over it", async (t) => {
  const w = world(t, { read: true });
  const file = put(w.workspace, "a.txt", "disk\n");
  w.editor.buffers.set(file, "buffer\n");
  const message = await toolError(
    "edit_file",
    { path: "a.txt", old_text: "buffer", new_text: "b" },
    w.ctx,
  );
  assert.equal(message, "a.txt changed since this edit was prepared; read it again");
  assert.equal(readFileSync(file, "utf8"), "disk\n");
  // The buffer saved (same text on disk): our own atomic write does it.
  w.editor.buffers.delete(file);
  assert.equal(
    (await call("edit_file", { path: "a.txt", old_text: "disk", new_text: "d" }, w.ctx)).status,
    "completed",
  );
  assert.equal(readFileSync(file, "utf8"), "d\n");
});

test("shell runs in the editor's terminal: output streams, the exit code counts, the terminal is reported and released", async (t) => {
  const w = world(t, { terminal: true });
  const result = await within(
    call("shell", { command: "echo out; echo err >&2; sleep 0.5; echo late; exit 3" }, w.ctx),
  );
  assert.equal(result.status, "failed");
  assert.equal(result.exit_code, 3);
  assert.equal(result.summary, "exit 3");
  assert.match(result.output, /out\n/);
  assert.match(result.output, /err\n/);
  assert.match(result.output, /late\n\[exit code 3\]$/);
  assert.equal(
    w.streamed.map((piece) => piece.text).join(""),
    result.output.replace("[exit code 3]", ""),
  );
  const [created] = w.editor.created;
  assert.equal(created?.args?.[0], "-c");
  assert.equal(created?.cwd, w.workspace);
  assert.equal(created?.outputByteLimit, 1_048_576);
  assert.deepEqual(w.terminals, [{ itemId: "item_7", terminalId: "term-1" }]);
  assert.deepEqual(w.editor.released, ["term-1"]);
  assert.equal(w.editor.openTerminals, 0);
  const ok = await within(call("shell", { command: "pwd" }, w.ctx));
  assert.equal(ok.status, "completed");
  assert.equal(ok.output, `${w.workspace}\n[exit code 0]`);
});

test("a command killed by a signal in the editor's terminal fails with that signal", async (t) => {
  const w = world(t, { terminal: true });
  const result = await within(call("shell", { command: "kill -9 $$" }, w.ctx));
  assert.equal(result.status, "failed");
  assert.equal(result.exit_code, null);
  assert.equal(result.output, "[killed by signal SIGKILL]");
});

test("the terminal's command gets our environment, every provider credential blanked", async (t) => {
  const w = world(t, { terminal: true }, { env: { PATH: process.env.PATH, MC_SEEN: "yes" } });
  const result = await within(
    call("shell", { command: 'echo "[$MC_SEEN][$OPENAI_API_KEY]"' }, w.ctx),
  );
  assert.equal(result.output, "[yes][]\n[exit code 0]");
  assert.equal(w.editor.envOf(0).get("OPENAI_API_KEY"), "");
  assert.equal(w.editor.envOf(0).get("ANTHROPIC_API_KEY"), "");
});

test("a command past its timeout is killed through terminal/kill and released", async (t) => {
  const w = world(t, { terminal: true });
  const result = await within(
    call("shell", { command: "echo started; sleep 30", timeout_ms: 700 }, w.ctx),
  );
  assert.equal(result.status, "failed");
  assert.equal(result.summary, "timed out after 700 ms");
  assert.match(
    result.output,
    /^started\n\[timed out after 700 ms; the command's processes were killed\]$/,
  );
  assert.deepEqual(w.editor.killed, ["term-1"]);
  assert.deepEqual(w.editor.released, ["term-1"]);
});

test("an interrupt kills the terminal's command and the call says interrupted", async (t) => {
  const controller = new AbortController();
  const w = world(t, { terminal: true }, { signal: controller.signal });
  const running = call("shell", { command: "echo ready; sleep 30" }, w.ctx);
  while (!w.streamed.some((piece) => piece.text.includes("ready")))
    await new Promise((resolve) => setTimeout(resolve, 20));
  controller.abort();
  const result = await within(running);
  assert.equal(result.status, "interrupted");
  assert.deepEqual(w.editor.killed, ["term-1"]);
  assert.deepEqual(w.editor.released, ["term-1"]);
  // Aborted before it starts: no terminal at all.
  const none = await within(call("shell", { command: "echo never" }, w.ctx));
  assert.equal(none.status, "interrupted");
  assert.equal(w.editor.created.length, 1);
});

test("output past the editor's limit: the model sees our bounded head and the editor's tail", async (t) => {
  const limits = { tool_output_bytes: 1000, tool_stream_bytes: 3000, shell_timeout_ms: 600_000 };
  const w = world(t, { terminal: true }, { limits });
  // 20 000 bytes at once: the editor keeps only the last 3000.
  const result = await within(
    call("shell", { command: "for i in $(seq 1 2000); do printf '%09d\\n' $i; done" }, w.ctx),
  );
  assert.equal(result.status, "completed");
  assert.ok(Buffer.byteLength(result.output) <= 1000, `${Buffer.byteLength(result.output)} bytes`);
  assert.match(result.output, /\[\.\.\. (part of the output|\d+ bytes of output) omitted \.\.\.\]/);
  assert.match(result.output, /000002000\n\[exit code 0\]$/);
  const streamedBytes = Buffer.byteLength(w.streamed.map((piece) => piece.text).join(""));
  assert.ok(streamedBytes <= 3000, `${streamedBytes} bytes streamed`);
});

test("a client offering nothing leaves our own tools in charge", async (t) => {
  const w = world(t, {});
  assert.equal(w.ctx.host, undefined);
  put(w.workspace, "a.txt", "disk\n");
  assert.equal((await call("read_file", { path: "a.txt" }, w.ctx)).output, "     1\tdisk");
  const shell = await within(call("shell", { command: "echo local" }, w.ctx));
  assert.equal(shell.output, "local\n[exit code 0]");
  assert.equal(w.editor.created.length + w.editor.reads.length, 0);
  assert.ok(!existsSync(join(w.workspace, "never")));
});

function planned(w: World, name: "edit_file" | "write_file", input: unknown) {
  return within(plan(name, input, w.ctx));
}

/**
 * Each tool end to end through the real child: the model (a loopback Chat Completions server)
 * asks for it, the child runs it, the events and the records say what happened, the workspace is
 * really changed (or not), and the next model call carries the result under its call ID.
 * Tool errors go back to the model and never fail a turn; `max_steps` stops a model that never
 * stops asking.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import {
  answer,
  type CallSpec,
  call,
  text,
  toolCall,
} from "../fixtures/chat-completions-server.js";
import {
  bodiesOf,
  itemEvent,
  recordsOf,
  recordsOfCall,
  resultText,
  runApproving,
  type TurnRun,
} from "./tool-turns.js";
import { type TurnWorld, turnWorld, typesOf } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface OneCall extends TurnRun {
  /** The model-visible result of the call. */
  seen: string;
  call: Record<string, unknown>;
  done: Record<string, unknown>;
  records: { call: Record<string, unknown>; result: Record<string, unknown> };
}

/** One turn: the model asks for one call (ID `callId`), then answers "Done." */
async function oneCall(
  w: TurnWorld,
  spec: CallSpec,
  permissions = "full_access",
): Promise<OneCall> {
  const callId = spec.id ?? "call_one";
  const { session } = await w.child.call("session.create", {});
  w.server.reply(answer({ text: "Let me see.", calls: [{ ...spec, id: callId }] }), text("Done."));
  const run = await runApproving(w.child, `use ${spec.name}`, permissions, []);
  assert.equal(run.result.status, "completed");
  assert.equal(run.result.stop_reason, "end_turn");
  assert.equal(run.result.steps, 2);
  assert.equal(w.server.requests.length, 2);
  const [toolCallEvent] = bodiesOf(run.events, "tool_call");
  assert.ok(toolCallEvent, "a tool_call event");
  const done = itemEvent(run.events, "tool_done", toolCallEvent.item_id);
  // The assistant message the model sees next carries the call with its ID, name and arguments.
  const messages = w.server.requests[1]?.body.messages;
  const assistant = messages.at(-2);
  assert.equal(assistant.role, "assistant");
  assert.equal(assistant.content, "Let me see.");
  assert.deepEqual(
    assistant.tool_calls.map((c: { id: string; function: { name: string } }) => [
      c.id,
      c.function.name,
    ]),
    [[callId, spec.name]],
  );
  assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), spec.input);
  assert.equal(messages.at(-1).role, "tool", "the result comes right after its call");
  const seen = resultText(w.server.requests[1], callId);
  const records = recordsOfCall(await recordsOf(w.child, session.id), callId);
  assert.equal(records.call.tool, spec.name);
  assert.deepEqual(records.call.input, spec.input);
  assert.equal(records.result.output, seen, "the record keeps exactly what the model saw");
  assert.equal(records.result.status, done.status);
  return { ...run, seen, call: toolCallEvent, done, records };
}

describe("turns: each tool end to end", () => {
  test("read_file: numbered lines to the model, no approval even under ask", async () => {
    world = await turnWorld();
    writeFileSync(join(world.box.workspace, "notes.txt"), "alpha\nbeta\n");
    const run = await oneCall(world, call("read_file", { path: "notes.txt" }), "ask");
    assert.deepEqual(typesOf(run.events).filter(isToolEvent), ["tool_call", "tool_done"]);
    assert.equal(run.call.tool, "read_file");
    assert.equal(run.call.title, "Read notes.txt");
    assert.deepEqual(run.call.input, { path: "notes.txt" });
    assert.equal(run.done.status, "completed");
    assert.equal(run.done.exit_code, null);
    assert.equal(run.done.diff, null);
    assert.equal(run.seen, "     1\talpha\n     2\tbeta");
    assert.equal(run.done.summary, "Read 2 lines");
    assert.equal(run.records.result.status, "completed");
  });

  test("list_dir: entries with kinds", async () => {
    world = await turnWorld();
    mkdirSync(join(world.box.workspace, "src"));
    writeFileSync(join(world.box.workspace, "src", "app.ts"), "x\n");
    mkdirSync(join(world.box.workspace, "src", "lib"));
    const run = await oneCall(world, call("list_dir", { path: "src" }), "ask");
    assert.equal(run.call.title, "List src");
    assert.equal(run.done.status, "completed");
    assert.equal(run.seen, "file app.ts\ndir lib");
    assert.equal(run.done.summary, "2 entries");
  });

  test("search: path:line:text matches, .git and ignored files skipped", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "a.txt"), "one needle\ntwo\nneedle again\n");
    writeFileSync(join(ws, "b.log"), "needle in a log\n");
    writeFileSync(join(ws, ".gitignore"), "*.log\n");
    mkdirSync(join(ws, ".git"));
    writeFileSync(join(ws, ".git", "config"), "needle\n");
    const run = await oneCall(world, call("search", { pattern: "needle" }), "ask");
    assert.equal(run.call.title, 'Search "needle"');
    assert.equal(run.done.status, "completed");
    assert.equal(run.seen, "a.txt:1:one needle\na.txt:3:needle again");
    assert.equal(run.done.summary, "2 matches");
  });

  test("write_file: the file is created atomically, the diff is on tool_done", async () => {
    world = await turnWorld();
    const run = await oneCall(
      world,
      call("write_file", { path: "src/new.ts", content: "one\ntwo\n" }),
      "accept_edits",
    );
    assert.equal(readFileSync(join(world.box.workspace, "src/new.ts"), "utf8"), "one\ntwo\n");
    assert.equal(run.call.title, "Create src/new.ts");
    assert.equal(run.done.status, "completed");
    assert.equal(run.done.exit_code, null);
    assert.match(run.done.diff as string, /^--- \/dev\/null\n\+\+\+ b\/src\/new\.ts\n/);
    assert.match(run.done.diff as string, /\n\+one\n\+two\n?$/);
    assert.equal(run.seen, "Created src/new.ts (2 lines, +2 -0)");
    assert.equal(bodiesOf(run.events, "approval_requested").length, 0);
  });

  test("edit_file: one exact replacement, diff and report", async () => {
    world = await turnWorld();
    const file = join(world.box.workspace, "app.ts");
    writeFileSync(file, "const a = 1;\nconst b = 2;\n");
    const run = await oneCall(
      world,
      call("edit_file", { path: "app.ts", old_text: "b = 2", new_text: "b = 3" }),
    );
    assert.equal(readFileSync(file, "utf8"), "const a = 1;\nconst b = 3;\n");
    assert.equal(run.call.title, "Edit app.ts");
    assert.equal(run.done.status, "completed");
    assert.match(run.done.diff as string, /^--- a\/app\.ts\n\+\+\+ b\/app\.ts\n/);
    assert.match(run.done.diff as string, /\n-const b = 2;\n\+const b = 3;\n/);
    assert.equal(run.seen, "Edited app.ts: 1 replacement (+1 -1)");
  });

  test("write_file and edit_file: a name of 255 bytes (NAME_MAX) works, 256 is a tool error", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const ascii = `${"a".repeat(251)}.txt`;
    // 84 three-byte characters and 3 bytes more: the temp name is cut between characters.
    const wide = `${"語".repeat(84)}.md`;
    const past = `${"b".repeat(252)}.txt`;
    assert.deepEqual(
      [ascii, wide, past].map((name) => Buffer.byteLength(name)),
      [255, 255, 256],
    );
    await child.call("session.create", {});
    server.reply(
      answer({
        calls: [
          call("write_file", { path: ascii, content: "one\n" }, "c_ascii"),
          call("edit_file", { path: ascii, old_text: "one", new_text: "two" }, "c_edit"),
          call("write_file", { path: `sub/${wide}`, content: "wide\n" }, "c_wide"),
          call("write_file", { path: past, content: "x\n" }, "c_past"),
        ],
      }),
      text("Done."),
    );
    const run = await runApproving(child, "long names", "full_access", []);
    assert.equal(run.result.status, "completed");
    const seen = (id: string) => resultText(server.requests[1], id);
    assert.match(seen("c_ascii"), /^Created a{251}\.txt/);
    assert.match(seen("c_edit"), /^Edited a{251}\.txt: 1 replacement/);
    assert.match(seen("c_wide"), /^Created sub\/(語){84}\.md/);
    const ws = world.box.workspace;
    assert.equal(readFileSync(join(ws, ascii), "utf8"), "two\n");
    assert.equal(readFileSync(join(ws, "sub", wide), "utf8"), "wide\n");
    // One past NAME_MAX: no file system takes it; a clear tool error, nothing written.
    assert.doesNotMatch(seen("c_past"), /^Created/);
    assert.ok(!readdirSync(ws).some((name) => name.startsWith("b") || name.endsWith(".tmp")));
    assert.ok(!readdirSync(join(ws, "sub")).some((name) => name.endsWith(".tmp")));
  });

  test("shell: runs in the workspace, output streamed, exit code to the model", async () => {
    world = await turnWorld();
    const run = await oneCall(
      world,
      call("shell", { command: "echo made > made.txt; pwd; echo done" }),
    );
    assert.equal(readFileSync(join(world.box.workspace, "made.txt"), "utf8"), "made\n");
    assert.equal(run.call.title, "Run echo made > made.txt; pwd; echo done");
    const streamed = bodiesOf(run.events, "tool_output_delta")
      .map((e) => e.text)
      .join("");
    assert.equal(streamed, `${world.box.workspace}\ndone\n`);
    assert.equal(run.done.status, "completed");
    assert.equal(run.done.exit_code, 0);
    assert.equal(run.done.summary, "exit 0");
    assert.equal(run.seen, `${world.box.workspace}\ndone\n[exit code 0]`);
    assert.equal(run.records.result.exit_code, 0);
  });
});

describe("turns: tool errors go back to the model, the turn goes on", () => {
  test("bad JSON, an unknown tool, a missing file, old_text matching 0 or 2 times", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "twice.txt"), "x = 1\nx = 1\n");
    const { session } = await world.child.call("session.create", {});
    world.server.reply(
      answer({
        calls: [
          { name: "read_file", input: '{"path": "twice.txt"', id: "c_json" },
          { name: "launch_rockets", input: { now: true }, id: "c_unknown" },
          { name: "read_file", input: { path: "missing.txt" }, id: "c_missing" },
          {
            name: "edit_file",
            input: { path: "twice.txt", old_text: "y = 2", new_text: "z" },
            id: "c_zero",
          },
          {
            name: "edit_file",
            input: { path: "twice.txt", old_text: "x = 1", new_text: "x = 2" },
            id: "c_two",
          },
          { name: "read_file", input: { path: "twice.txt", limit: 0 }, id: "c_invalid" },
        ],
      }),
      text("I see the problems."),
    );
    const run = await runApproving(world.child, "try things", "full_access", []);
    assert.equal(run.result.status, "completed");
    assert.equal(run.result.stop_reason, "end_turn");
    assert.equal(run.result.error, null);
    assert.equal(run.result.steps, 2);
    assert.equal(readFileSync(join(ws, "twice.txt"), "utf8"), "x = 1\nx = 1\n", "unchanged");
    const next = world.server.requests[1];
    assert.ok(next);
    const seen = (id: string) => resultText(next, id);
    assert.equal(seen("c_json"), "invalid input: the arguments are not valid JSON");
    assert.equal(seen("c_unknown"), 'Unknown tool "launch_rockets".');
    assert.match(seen("c_missing"), /missing\.txt/);
    assert.equal(seen("c_zero"), "old_text was not found in twice.txt");
    assert.match(seen("c_two"), /^old_text occurs 2 times in twice\.txt; add context/);
    assert.match(seen("c_invalid"), /invalid input/);
    // Every call was announced and failed, the unknown one under the model's name (issue 36).
    const calls = bodiesOf(run.events, "tool_call");
    assert.deepEqual(
      calls.map((c) => c.tool),
      ["read_file", "launch_rockets", "read_file", "edit_file", "edit_file", "read_file"],
    );
    const dones = bodiesOf(run.events, "tool_done");
    assert.deepEqual(
      dones.map((d) => d.status),
      ["failed", "failed", "failed", "failed", "failed", "failed"],
    );
    assert.deepEqual(
      dones.map((d) => d.item_id),
      calls.map((c) => c.item_id),
    );
    // Every call is recorded with its failed result, in call order, the unknown one too.
    const records = await recordsOf(world.child, session.id);
    for (const id of ["c_json", "c_unknown", "c_missing", "c_zero", "c_two", "c_invalid"]) {
      const { result } = recordsOfCall(records, id);
      assert.equal(result.status, "failed");
      assert.equal(result.output, seen(id));
    }
    assert.deepEqual(
      next.body.messages
        .filter((m: { role: string }) => m.role === "tool")
        .map((m: { tool_call_id: string }) => m.tool_call_id),
      ["c_json", "c_unknown", "c_missing", "c_zero", "c_two", "c_invalid"],
    );
    assert.equal(records.at(-1).type, "turn_end");
    assert.equal(records.at(-1).status, "completed");
  });
  test("the next turn replays the failed calls exactly as the model saw them in the turn", async () => {
    world = await turnWorld();
    await world.child.call("session.create", {});
    world.server.reply(
      answer({
        calls: [
          { name: "read_file", input: '{"path": "a.txt"', id: "c_json" },
          { name: "launch_rockets", input: { now: true }, id: "c_unknown" },
        ],
      }),
      text("Sorry."),
      text("Hello again."),
    );
    await runApproving(world.child, "first", "full_access", []);
    await runApproving(world.child, "second", "full_access", []);
    const inTurn = world.server.requests[1]?.body.messages.slice(1);
    const replayed = world.server.requests[2]?.body.messages.slice(1, inTurn.length + 1);
    assert.deepEqual(replayed, inTurn);
    // What the model sent is kept (not replaced by an empty object) and it is told plainly.
    assert.deepEqual(JSON.parse(inTurn[1].tool_calls[0].function.arguments), {
      invalid_json: '{"path": "a.txt"',
    });
    assert.equal(inTurn[2].content, "invalid input: the arguments are not valid JSON");
  });
});

describe("turns: max_steps", () => {
  test("a model that asks for a tool on every call stops after 64 calls", async () => {
    world = await turnWorld();
    writeFileSync(join(world.box.workspace, "loop.txt"), "again\n");
    for (let i = 0; i < 64; i += 1)
      world.server.reply(toolCall("read_file", { path: "loop.txt" }, { text: `step ${i}` }));
    await world.child.call("session.create", {});
    const run = await runApproving(world.child, "loop forever", "ask", []);
    assert.equal(run.result.status, "completed");
    assert.equal(run.result.stop_reason, "max_steps");
    assert.equal(run.result.error, null);
    assert.equal(run.result.steps, 64);
    assert.equal(world.server.requests.length, 64, "exactly max_steps model calls");
    assert.equal(world.server.pending(), 0);
    assert.equal(world.server.unscripted, 0);
    assert.equal(bodiesOf(run.events, "tool_done").length, 64, "the last call's tool ran too");
    assert.equal(bodiesOf(run.events, "usage").length, 64);
    // Call n carries the n-1 earlier results.
    const last = world.server.requests[63]?.body.messages;
    assert.equal(last.filter((m: { role: string }) => m.role === "tool").length, 63);
    // The last call's result was recorded: the next turn shows the model all 64.
    world.server.reply(text("Stopped."));
    const next = await runApproving(world.child, "why did you stop?", "ask", []);
    assert.equal(next.result.stop_reason, "end_turn");
    const replayed = world.server.requests[64]?.body.messages;
    assert.equal(replayed.filter((m: { role: string }) => m.role === "tool").length, 64);
    assert.deepEqual(replayed.at(-1), { role: "user", content: "why did you stop?" });
  });
});

function isToolEvent(type: string): boolean {
  return type.startsWith("tool_") || type.startsWith("approval_");
}

/**
 * Permissions through the real child: what each level offers the model, what it asks the user,
 * what `allow_once`, `allow_session` and `deny` do (and for how long), and that nothing denied
 * or refused ever reaches the disk.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { answer, type CallSpec, text } from "../fixtures/chat-completions-server.js";
import { shellCall, writeCall } from "./call-specs.js";
import {
  bodiesOf,
  itemEvent,
  offeredNames,
  resultText,
  runApproving,
  type TurnRun,
} from "./tool-turns.js";
import { startTurn, type TurnWorld, turnWorld, typesOf } from "./turn-harness.js";

let world: TurnWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ALL_TOOLS = ["read_file", "list_dir", "search", "write_file", "edit_file", "shell"];
const DENIED = "denied by the user";

/** Scripts one model step per call (each call alone in its step), then a closing text. */
function steps(w: TurnWorld, calls: CallSpec[]): void {
  for (const c of calls) w.server.reply(answer({ calls: [c] }));
  w.server.reply(text("Finished."));
}

/** A turn of one step per call, answering the approvals it asks with `decisions`. */
async function stepTurn(
  w: TurnWorld,
  permissions: string,
  calls: CallSpec[],
  decisions: string[],
): Promise<TurnRun> {
  const before = w.server.requests.length;
  steps(w, calls);
  const run = await runApproving(w.child, "do the work", permissions, decisions);
  assert.equal(run.result.status, "completed");
  assert.equal(run.result.stop_reason, "end_turn");
  assert.equal(run.result.steps, calls.length + 1);
  assert.equal(w.server.requests.length, before + calls.length + 1);
  return run;
}

/** The model-visible result of the call `id`, from the request right after its step. */
function seenAfter(w: TurnWorld, id: string): string {
  const request = w.server.requests.find((r) =>
    r.body.messages.some((m: { tool_call_id?: string }) => m.tool_call_id === id),
  );
  return resultText(request, id);
}

describe("turns: the permission levels", () => {
  test("read_only offers only the readers; a write_file and a shell call anyway are tool errors", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    const run = await stepTurn(
      world,
      "read_only",
      [writeCall("sneaky.txt", "x", "c_write"), shellCall("touch ran.txt", "c_shell")],
      [],
    );
    for (const request of world.server.requests)
      assert.deepEqual(offeredNames(request), ["read_file", "list_dir", "search"]);
    assert.equal(
      seenAfter(world, "c_write"),
      "The tool write_file is not available under the current permissions.",
    );
    assert.equal(
      seenAfter(world, "c_shell"),
      "The tool shell is not available under the current permissions.",
    );
    assert.deepEqual(
      bodiesOf(run.events, "tool_done").map((d) => d.status),
      ["failed", "failed"],
    );
    // What a frontend sees of a call not offered: announced, no approval asked, failed.
    assert.deepEqual(
      bodiesOf(run.events, "tool_call").map((c) => [c.tool, c.title]),
      [
        ["write_file", "Use write_file"],
        ["shell", "Use shell"],
      ],
    );
    assert.equal(bodiesOf(run.events, "approval_requested").length, 0, "never an approval");
    assert.equal(run.events[0]?.event.permissions, "read_only");
    const system = world.server.requests[0]?.body.messages[0].content;
    assert.match(system, /^Tools: read_file, list_dir, search\. /m);
    assert.match(system, /^Permissions: read-only: /m);
    assert.ok(!existsSync(join(ws, "sneaky.txt")));
    assert.ok(!existsSync(join(ws, "ran.txt")));
  });

  test("ask asks for an edit and for a command, showing what will happen", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "a.txt"), "old\n");
    await world.child.call("session.create", {});
    const run = await stepTurn(
      world,
      "ask",
      [writeCall("a.txt", "new\n", "c_edit"), shellCall("echo hi > hi.txt", "c_cmd")],
      ["allow_once", "allow_once"],
    );
    assert.deepEqual(offeredNames(world.server.requests[0]), ALL_TOOLS);
    const [edit, command] = run.approvals;
    const [editCall, commandCall] = bodiesOf(run.events, "tool_call");
    assert.deepEqual(Object.keys(edit).sort(), [
      "approval_id",
      "command",
      "diff",
      "item_id",
      "kind",
      "path",
      "rule",
      "title",
      "truncated",
      "type",
    ]);
    assert.deepEqual(edit.rule, {
      tool: "edit",
      path_glob: null,
      text: "every edit in the workspace",
    });
    assert.equal(edit.item_id, editCall.item_id);
    assert.equal(edit.kind, "edit");
    assert.equal(edit.title, "Write a.txt");
    assert.equal(edit.command, null);
    assert.equal(edit.path, "a.txt");
    assert.equal(edit.diff, "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n");
    assert.equal(edit.truncated, false);
    assert.equal(itemEvent(run.events, "tool_done", editCall.item_id).diff, edit.diff);
    assert.equal(command.item_id, commandCall.item_id);
    assert.equal(command.kind, "command");
    assert.equal(command.title, "Run echo hi > hi.txt");
    assert.equal(command.command, "echo hi > hi.txt");
    assert.equal(command.path, null);
    assert.equal(command.diff, null);
    assert.equal(command.truncated, false);
    // Each approval sits between its call and its result, resolved as decided.
    const tools = typesOf(run.events).filter(
      (t) => t.startsWith("tool_") || t.startsWith("approval_"),
    );
    assert.deepEqual(tools, [
      "tool_call",
      "approval_requested",
      "approval_resolved",
      "tool_done",
      "tool_call",
      "approval_requested",
      "approval_resolved",
      "tool_done",
    ]);
    assert.deepEqual(
      bodiesOf(run.events, "approval_resolved"),
      run.approvals.map((a) => ({
        type: "approval_resolved",
        approval_id: a.approval_id,
        decision: "allow_once",
      })),
    );
    assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "new\n");
    assert.equal(readFileSync(join(ws, "hi.txt"), "utf8"), "hi\n");
    assert.equal(seenAfter(world, "c_cmd"), "[exit code 0]");
  });

  test("accept_edits asks only for commands", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    const run = await stepTurn(
      world,
      "accept_edits",
      [writeCall("b.txt", "b\n", "c_edit"), shellCall("cat b.txt", "c_cmd")],
      ["allow_once"],
    );
    assert.deepEqual(offeredNames(world.server.requests[0]), ALL_TOOLS);
    assert.equal(run.approvals[0].kind, "command");
    assert.equal(run.approvals[0].command, "cat b.txt");
    assert.equal(readFileSync(join(ws, "b.txt"), "utf8"), "b\n");
    assert.equal(seenAfter(world, "c_cmd"), "b\n[exit code 0]");
  });

  test("full_access asks nothing", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    await stepTurn(
      world,
      "full_access",
      [writeCall("c.txt", "c\n", "c_edit"), shellCall("cat c.txt", "c_cmd")],
      [],
    );
    assert.deepEqual(offeredNames(world.server.requests[0]), ALL_TOOLS);
    assert.equal(readFileSync(join(ws, "c.txt"), "utf8"), "c\n");
    assert.equal(seenAfter(world, "c_cmd"), "c\n[exit code 0]");
  });

  test("an edit too large for one event is shown cut and marked truncated, written whole", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    // 78 KB: its diff alone takes the approval past event_bytes (a whole frame is 65536 bytes).
    const content = `${"line of text\n".repeat(6000)}`;
    const run = await stepTurn(
      world,
      "ask",
      [writeCall("big.txt", content, "c_big")],
      ["allow_once"],
    );
    const [asked] = run.approvals;
    assert.equal(asked.truncated, true);
    assert.match(asked.diff, /\n\[\.\.\. cut to fit the event size\]$/);
    assert.ok(Buffer.byteLength(asked.diff) < 65536 && asked.diff.length > 60_000, "cut to fit");
    assert.equal(readFileSync(join(ws, "big.txt"), "utf8"), content);
    const [call] = bodiesOf(run.events, "tool_call");
    assert.deepEqual(Object.keys(call.input), ["omitted_bytes"]);
  });
});

describe("turns: approval decisions", () => {
  test("allow_once allows that call only: the next edit is asked again", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    const run = await stepTurn(
      world,
      "ask",
      [writeCall("one.txt", "1\n", "c1"), writeCall("two.txt", "2\n", "c2")],
      ["allow_once", "allow_once"],
    );
    assert.deepEqual(
      run.approvals.map((a) => a.path),
      ["one.txt", "two.txt"],
    );
    await stepTurn(world, "ask", [writeCall("three.txt", "3\n", "c3")], ["allow_once"]);
    // A decided approval cannot be decided again (nor one of a finished turn).
    const again = await world.child.errorCode("turn.approve", {
      approval_id: run.approvals[0].approval_id,
      decision: "allow_session",
    });
    assert.equal(again, "approval_missing");
    assert.equal(readFileSync(join(ws, "three.txt"), "utf8"), "3\n");
  });

  test("allow_session for edits lasts for the attachment, not past session.open or session.create", async () => {
    world = await turnWorld();
    const { child } = world;
    const ws = world.box.workspace;
    const { session } = await child.call("session.create", {});
    // The lazy handle's first turn: allowed for the session, then another edit in the same turn.
    await stepTurn(
      world,
      "ask",
      [
        writeCall("a.txt", "a\n", "c1"),
        { name: "edit_file", input: { path: "a.txt", old_text: "a", new_text: "A" }, id: "c2" },
      ],
      ["allow_session"],
    );
    assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "A\n");
    // The next turn of the same attachment: no question for any edit; a command is still asked.
    const second = await stepTurn(
      world,
      "ask",
      [writeCall("b.txt", "b\n", "c3"), shellCall("touch nope.txt", "c4")],
      ["deny"],
    );
    assert.equal(second.approvals[0].kind, "command");
    assert.equal(readFileSync(join(ws, "b.txt"), "utf8"), "b\n");
    assert.ok(!existsSync(join(ws, "nope.txt")));
    // Reopening (even the same session) is a new attachment: asked again.
    await child.call("session.open", { id: session.id });
    await stepTurn(world, "ask", [writeCall("c.txt", "c\n", "c5")], ["allow_once"]);
    await stepTurn(world, "ask", [writeCall("c.txt", "c2\n", "c6")], ["allow_session"]);
    await stepTurn(world, "ask", [writeCall("c.txt", "c3\n", "c7")], []);
    await child.call("session.create", {});
    await stepTurn(world, "ask", [writeCall("d.txt", "d\n", "c8")], ["allow_once"]);
    assert.equal(readFileSync(join(ws, "c.txt"), "utf8"), "c3\n");
    assert.equal(readFileSync(join(ws, "d.txt"), "utf8"), "d\n");
  });

  test("allow_session for a command keeps a prefix rule; a command with a redirection keeps none", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    await world.child.call("session.create", {});
    const first = await stepTurn(
      world,
      "ask",
      [
        shellCall("echo one >> log.txt", "c1"),
        shellCall("echo one >> log.txt", "c2"),
        shellCall("touch a.txt", "c3"),
        shellCall("touch b.txt", "c4"),
      ],
      ["allow_session", "allow_once", "allow_session"],
    );
    assert.deepEqual(
      first.approvals.map((a) => [a.command, a.rule?.text ?? null]),
      [
        ["echo one >> log.txt", null],
        ["echo one >> log.txt", null],
        ["touch a.txt", "touch"],
      ],
    );
    // Next turn: the prefix rule covers another `touch`; the redirection still asks; an edit is
    // still asked (a command rule allows no edit).
    const second = await stepTurn(
      world,
      "ask",
      [
        shellCall("touch c.txt", "c5"),
        shellCall("echo one >> log.txt", "c6"),
        writeCall("e.txt", "e\n", "c7"),
      ],
      ["allow_once", "deny"],
    );
    assert.deepEqual(
      second.approvals.map((a) => a.kind),
      ["command", "edit"],
    );
    assert.equal(readFileSync(join(ws, "log.txt"), "utf8"), "one\none\none\n");
    assert.ok(existsSync(join(ws, "c.txt")));
    assert.ok(!existsSync(join(ws, "e.txt")));
  });

  test("deny: the model is told, the turn goes on and completes, nothing changes on disk", async () => {
    world = await turnWorld();
    const ws = world.box.workspace;
    writeFileSync(join(ws, "keep.txt"), "original\n");
    const { session } = await world.child.call("session.create", {});
    const run = await stepTurn(
      world,
      "ask",
      [
        writeCall("keep.txt", "overwritten\n", "c1"),
        {
          name: "edit_file",
          input: { path: "keep.txt", old_text: "original", new_text: "x" },
          id: "c2",
        },
        shellCall("touch made.txt", "c3"),
      ],
      ["deny", "deny", "deny"],
    );
    for (const id of ["c1", "c2", "c3"]) assert.equal(seenAfter(world, id), DENIED);
    assert.deepEqual(
      bodiesOf(run.events, "approval_resolved").map((r) => r.decision),
      ["deny", "deny", "deny"],
    );
    const dones = bodiesOf(run.events, "tool_done");
    assert.deepEqual(
      dones.map((d) => [d.status, d.exit_code, d.diff]),
      [
        ["denied", null, null],
        ["denied", null, null],
        ["denied", null, null],
      ],
    );
    assert.equal(bodiesOf(run.events, "tool_output_delta").length, 0);
    assert.equal(readFileSync(join(ws, "keep.txt"), "utf8"), "original\n");
    assert.ok(!existsSync(join(ws, "made.txt")));
    const history = await world.child.call("session.history", { id: session.id });
    const results = history.events.filter((e) => e.type === "tool_result") as unknown as {
      status: string;
      output: string;
    }[];
    assert.deepEqual(
      results.map((r) => [r.status, r.output]),
      [
        ["denied", DENIED],
        ["denied", DENIED],
        ["denied", DENIED],
      ],
    );
    assert.equal(bodiesOf(run.events, "message_done").at(-1)?.text, "Finished.");
  });

  test("an edit whose file changed while its approval waited is a tool error, the user's text kept", async () => {
    world = await turnWorld();
    const { child, server } = world;
    const file = join(world.box.workspace, "race.txt");
    writeFileSync(file, "first\n");
    await child.call("session.create", {});
    server.reply(
      answer({
        calls: [
          {
            name: "edit_file",
            input: { path: "race.txt", old_text: "first", new_text: "model" },
            id: "c_race",
          },
        ],
      }),
      text("I will read it again."),
    );
    const turn = startTurn(child, "edit it", "ask");
    const asked = await turn.event("approval_requested");
    writeFileSync(file, "user\n");
    const reply = await child.request("turn.approve", {
      approval_id: asked.event.approval_id,
      decision: "allow_once",
    });
    assert.equal((reply.result as { state: string }).state, "applied");
    const frame = await turn.response;
    assert.equal((frame.result as { status: string }).status, "completed");
    assert.equal(readFileSync(file, "utf8"), "user\n");
    assert.equal(
      resultText(server.requests[1], "c_race"),
      "race.txt changed since this edit was prepared; read it again",
    );
    assert.equal(bodiesOf(turn.events(), "tool_done")[0].status, "failed");
  });
});

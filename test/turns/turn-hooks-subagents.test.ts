/**
 * Subagents and hooks (docs/hooks.md, "Subagents"): a subagent's own tool calls run the
 * parent's PreToolUse and PostToolUse hooks (as in Claude Code, with the parent's session),
 * between the parent's PreToolUse and PostToolUse of its `agent` call; a subagent has no
 * UserPromptSubmit, SessionStart or Stop of its own, and there is no SubagentStop: a Stop hook
 * runs once, when the parent's turn ends, and its block sends only the parent on.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type HookWorld, hookWorld, loggedHooks } from "./hook-world.js";
import { bodiesOf, runApproving } from "./tool-turns.js";
import { TURN_CAPS } from "./turn-harness.js";

let world: HookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** SubagentStart and SubagentStop are Claude Code's: the file is valid, and they never run. */
const EVENTS = [
  "UserPromptSubmit",
  "SessionStart",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStart",
  "SubagentStop",
];

/** Every event logged, and a Stop hook that blocks once (a marker file says it did). */
function hooks({ logCommand, root }: { logCommand: (event: string) => string; root: string }) {
  const logged = Object.fromEntries(
    EVENTS.map((event) => [event, [{ hooks: [{ type: "command", command: logCommand(event) }] }]]),
  );
  const marker = join(root, "stopped-once");
  const blockOnce = `[ -e '${marker}' ] || { touch '${marker}'; echo 'check the map' >&2; exit 2; }`;
  logged.Stop?.push({ hooks: [{ type: "command", command: blockOnce }] });
  return logged;
}

describe("hooks and subagents", () => {
  test("a subagent runs the parent's tool hooks, no session or Stop hooks of its own", async () => {
    world = await hookWorld("chat", {
      hooks,
      capabilities: [...TURN_CAPS, "subagents", "hooks"],
    });
    const w = world;
    writeFileSync(join(w.w.box.workspace, "notes.txt"), "alpha\n");
    const created = await w.w.child.call("session.create", {});
    const sessionId = (created as { session: { id: string } }).session.id;
    world.call("agent", { description: "Map", prompt: "Read notes.txt" }, "call_agent");
    world.call("read_file", { path: "notes.txt" }, "call_read");
    world.reply("The notes say alpha.");
    world.reply("The helper read it.");
    world.reply("Checked the map too.");
    const run = await runApproving(w.w.child, "Map it with a helper", "ask", []);
    assert.equal(run.result.status, "completed", JSON.stringify(run.result));
    const logged = loggedHooks(w.logDir);
    assert.deepEqual(
      logged.map((l) => [l.event, l.input.tool_name ?? null]),
      [
        ["UserPromptSubmit", null],
        ["SessionStart", null],
        ["PreToolUse", "agent"],
        ["PreToolUse", "read_file"],
        ["PostToolUse", "read_file"],
        ["PostToolUse", "agent"],
        ["Stop", null],
        ["Stop", null],
      ],
      "the subagent's read ran the tool hooks; its end ran no Stop, no SubagentStart/Stop",
    );
    for (const { input } of logged) assert.equal(input.session_id, sessionId);
    assert.deepEqual(
      logged.filter((l) => l.event === "Stop").map((l) => l.input.stop_hook_active),
      [false, true],
      "the Stop block sent the parent on once",
    );
    // The subagent's hooks are the parent's: their events are in the parent's own stream.
    const started = bodiesOf(run.events, "hook_started").map((e) => e.event);
    assert.deepEqual(started, [
      "UserPromptSubmit",
      "SessionStart",
      "PreToolUse",
      "PreToolUse",
      "PostToolUse",
      "PostToolUse",
      "Stop",
      "Stop",
      "Stop",
      "Stop",
    ]);
    const requests = w.requests();
    assert.equal(requests.length, 5, "parent, subagent twice, parent, parent again after Stop");
    assert.match(requests[4] as string, /check the map/);
    assert.doesNotMatch(requests[2] as string, /check the map/, "the subagent was not sent on");
  });
});

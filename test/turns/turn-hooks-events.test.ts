/**
 * Hooks (docs/hooks.md): each event fires once at its moment, with Claude Code's stdin fields,
 * the project folder's names and no provider key in its environment, on every wire format; and
 * with `hooks` negotiated each run is framed by `hook_started` and `hook_done`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import {
  ANTHROPIC_KEY,
  type HookWorld,
  hookWorld,
  loggedHooks,
  OPENAI_KEY,
  WIRES,
} from "./hook-world.js";
import { DEMO_KEY } from "./provider-world.js";
import { bodiesOf, runApproving } from "./tool-turns.js";

let world: HookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "PreCompact",
  "SessionEnd",
  "Notification",
];

for (const wire of WIRES) {
  describe(`hooks on ${wire}`, () => {
    test("each event fires once, in order, with its stdin; events framed; no key", async () => {
      world = await hookWorld(wire, {
        hooks: ({ logCommand }) =>
          Object.fromEntries(
            EVENTS.map((event) => [
              event,
              [{ hooks: [{ type: "command", command: logCommand(event) }] }],
            ]),
          ),
      });
      const { w } = world;
      const created = await w.child.call("session.create", {});
      world.call("write_file", { path: "notes.txt", content: "alpha\n" }, "call_w1");
      world.reply("Written.");
      const run = await runApproving(w.child, "write the notes", "ask", ["allow_once"]);
      assert.equal(run.result.status, "completed");
      await w.child.close();
      const logged = loggedHooks(world.logDir);
      assert.deepEqual(
        logged.map((l) => l.event),
        [
          "UserPromptSubmit",
          "SessionStart",
          "PreToolUse",
          "Notification",
          "PostToolUse",
          "Stop",
          "SessionEnd",
        ],
      );
      const sessionId = (created as { session: { id: string } }).session.id;
      const transcript = join(w.box.home, "sessions", `${sessionId}.jsonl`);
      for (const { event, input, env } of logged) {
        assert.equal(input.hook_event_name, event);
        assert.equal(input.session_id, sessionId);
        assert.equal(input.cwd, w.box.workspace);
        assert.equal(input.transcript_path, transcript);
        assert.equal(input.permissions, "ask");
        assert.equal(input.permission_mode, "default");
        assert.equal(env.CLAUDE_PROJECT_DIR, w.box.workspace);
        assert.equal(env.MC_PROJECT_DIR, w.box.workspace);
        for (const key of [DEMO_KEY, OPENAI_KEY, ANTHROPIC_KEY])
          assert.ok(!Object.values(env).some((v) => v.includes(key)), `a key reached ${event}`);
        assert.equal(env.OPENAI_API_KEY, undefined);
      }
      assert.ok(existsSync(transcript));
      const byEvent = Object.fromEntries(logged.map((l) => [l.event, l.input]));
      assert.equal(byEvent.UserPromptSubmit?.prompt, "write the notes");
      assert.equal(byEvent.SessionStart?.source, "startup");
      const pre = byEvent.PreToolUse as Record<string, unknown>;
      assert.equal(pre.tool_name, "write_file");
      assert.equal(pre.tool_use_id, "call_w1");
      assert.deepEqual(pre.tool_input, {
        path: "notes.txt",
        content: "alpha\n",
        file_path: join(w.box.workspace, "notes.txt"),
      });
      const post = byEvent.PostToolUse as Record<string, Record<string, unknown>>;
      assert.equal(post.tool_response?.status, "completed");
      assert.equal(post.tool_response?.success, true);
      assert.equal(post.tool_response?.filePath, join(w.box.workspace, "notes.txt"));
      assert.match(String(post.tool_response?.output), /notes\.txt/);
      assert.equal(byEvent.Stop?.stop_hook_active, false);
      assert.equal(byEvent.Notification?.notification_type, "permission_prompt");
      assert.equal(byEvent.SessionEnd?.reason, "exit");
      // On the wire: hook_started then hook_done for each run of the turn (SessionEnd emits none).
      const started = bodiesOf(run.events, "hook_started");
      const done = bodiesOf(run.events, "hook_done");
      assert.deepEqual(
        started.map((e) => e.event),
        ["UserPromptSubmit", "SessionStart", "PreToolUse", "Notification", "PostToolUse", "Stop"],
      );
      assert.deepEqual(
        done.map((e) => e.hook_id),
        started.map((e) => e.hook_id),
      );
      for (const d of done) {
        assert.equal(d.status, "ok");
        assert.ok(Number.isInteger(d.duration_ms) && d.duration_ms >= 0);
      }
      const types = run.events.map((e) => e.event.type);
      assert.equal(types[0], "turn_started");
      // A second turn of the same attachment: no second SessionStart.
    });
  });
}

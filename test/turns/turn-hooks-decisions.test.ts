/**
 * Hook decisions as Claude Code defines them (docs/hooks.md, "Decisions"), on every wire format:
 * PreToolUse exit 2 denies with stderr for the model, `permissionDecision` allow spares an
 * approval and ask forces one (deny > ask > allow among parallel hooks), PostToolUse's words
 * reach the model, Stop exit 2 sends the turn on within its bound, UserPromptSubmit exit 2
 * refuses the turn with `prompt_blocked` before anything is written or sent, and a Claude Code
 * configuration pasted unchanged (Bash, Edit|Write) works.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type HookWorld, hookWorld, loggedHooks, WIRES } from "./hook-world.js";
import { bodiesOf, runApproving } from "./tool-turns.js";

let world: HookWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const command = (text: string, timeout?: number) => ({
  type: "command",
  command: text,
  ...(timeout ? { timeout } : {}),
});
const allowJson = (decision: string) =>
  `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}"}}'`;

for (const wire of WIRES) {
  describe(`hook decisions on ${wire}`, () => {
    test("PreToolUse exit 2 on shell denies the call; the next request carries stderr", async () => {
      world = await hookWorld(wire, {
        hooks: () => ({
          PreToolUse: [
            {
              matcher: "shell",
              hooks: [command("echo 'no rm -rf here, said the hook' >&2; exit 2")],
            },
          ],
        }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      world.call("shell", { command: "touch ran.txt" }, "call_s1");
      world.reply("Understood.");
      const run = await runApproving(w.child, "clean up", "full_access", []);
      assert.equal(run.result.status, "completed");
      assert.equal(bodiesOf(run.events, "tool_done")[0]?.status, "denied");
      assert.ok(!existsSync(join(w.box.workspace, "ran.txt")), "the denied command never ran");
      const second = world.requests()[1] ?? "";
      assert.ok(second.includes("no rm -rf here, said the hook"), "the reason reached the model");
      assert.equal(bodiesOf(run.events, "hook_done")[0]?.status, "blocked");
    });

    test("permissionDecision allow runs an edit under ask unasked; ask forces one; deny wins", async () => {
      world = await hookWorld(wire, {
        hooks: () => ({
          PreToolUse: [
            { matcher: "write_file", hooks: [command(allowJson("allow"))] },
            // Two hooks on shell: ask and allow; ask wins, and forces an approval at full_access.
            { matcher: "shell", hooks: [command(allowJson("ask")), command(allowJson("allow"))] },
            // Three on edit_file: deny wins over ask and allow.
            {
              matcher: "edit_file",
              hooks: [
                command(allowJson("allow")),
                command(allowJson("deny")),
                command(allowJson("ask")),
              ],
            },
          ],
        }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      world.call("write_file", { path: "a.txt", content: "alpha\n" }, "call_a");
      world.reply("Done.");
      const written = await runApproving(w.child, "write a", "ask", []);
      assert.equal(written.result.status, "completed");
      assert.equal(readFileSync(join(w.box.workspace, "a.txt"), "utf8"), "alpha\n");

      world.call("shell", { command: "touch b.txt" }, "call_b");
      world.reply("Done.");
      const asked = await runApproving(w.child, "touch b", "full_access", ["allow_once"]);
      assert.equal(asked.approvals.length, 1, "ask forced an approval under full_access");
      assert.ok(existsSync(join(w.box.workspace, "b.txt")));

      world.call("edit_file", { path: "a.txt", old_text: "alpha", new_text: "beta" }, "call_c");
      world.reply("Done.");
      const denied = await runApproving(w.child, "edit a", "full_access", []);
      assert.equal(bodiesOf(denied.events, "tool_done")[0]?.status, "denied");
      assert.equal(readFileSync(join(w.box.workspace, "a.txt"), "utf8"), "alpha\n");
    });

    test("PostToolUse gets the output and its block reason reaches the model", async () => {
      world = await hookWorld(wire, {
        hooks: ({ logCommand }) => ({
          PostToolUse: [
            {
              matcher: "shell",
              hooks: [
                command(logCommand("PostToolUse")),
                command(`echo '{"decision":"block","reason":"lint failed: fix line 3"}'`),
              ],
            },
          ],
        }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      world.call("shell", { command: "echo hello-from-shell" }, "call_p");
      world.reply("Fixing.");
      const run = await runApproving(w.child, "run it", "full_access", []);
      assert.equal(run.result.status, "completed");
      const [post] = loggedHooks(world.logDir);
      const response = post?.input.tool_response as Record<string, unknown>;
      assert.match(String(response.output), /hello-from-shell/);
      assert.equal(response.exit_code, 0);
      assert.ok((world.requests()[1] ?? "").includes("lint failed: fix line 3"));
    });

    test("Stop exit 2 sends the turn on once; a hook that always blocks is bounded", async () => {
      const flag = "stop-once.flag";
      world = await hookWorld(wire, {
        hooks: ({ root }) => ({
          Stop: [
            {
              hooks: [
                command(
                  `if [ -e ${root}/${flag} ]; then exit 0; fi; touch ${root}/${flag}; echo 'run the linter first' >&2; exit 2`,
                ),
              ],
            },
          ],
        }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      world.reply("All done.");
      world.reply("Linted, done.");
      const once = await runApproving(w.child, "finish", "full_access", []);
      assert.equal(once.result.status, "completed");
      assert.equal(once.result.steps, 2);
      assert.ok((world.requests()[1] ?? "").includes("run the linter first"));
    });

    test("a Stop hook that always blocks ends after the bound", async () => {
      world = await hookWorld(wire, {
        hooks: () => ({ Stop: [{ hooks: [command("echo 'never done' >&2; exit 2")] }] }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      for (let i = 0; i < 4; i++) world.reply(`Reply ${i}.`);
      const run = await runApproving(w.child, "finish", "full_access", []);
      assert.equal(run.result.status, "completed");
      // One reply, then three continuations (STOP_CONTINUATIONS), then the turn ends.
      assert.equal(run.result.steps, 4);
      // The hook ran after each reply; the fourth time its block no longer held.
      assert.equal(bodiesOf(run.events, "hook_started").length, 4);
      assert.deepEqual(
        bodiesOf(run.events, "hook_done").map((e) => e.status),
        ["blocked", "blocked", "blocked", "blocked"],
      );
    });

    test("UserPromptSubmit exit 2: prompt_blocked, nothing written or sent", async () => {
      world = await hookWorld(wire, {
        hooks: () => ({
          UserPromptSubmit: [
            { hooks: [command("echo 'no ticket number in the prompt' >&2; exit 2")] },
          ],
        }),
      });
      const { w } = world;
      const created = (await w.child.call("session.create", {})) as { session: { id: string } };
      const reply = await w.child.request("turn.start", { input: "do it", permissions: "ask" });
      assert.equal(reply.error?.code, "prompt_blocked");
      assert.equal(reply.error?.message, "no ticket number in the prompt");
      assert.equal(world.requests().length, 0, "nothing was sent");
      const sessions = join(w.box.home, "sessions");
      const files = existsSync(sessions) ? readdirSync(sessions) : [];
      assert.ok(!files.some((f) => f.startsWith(created.session.id)), "nothing was written");
    });

    test("a Claude Code configuration pasted unchanged (Bash, Edit|Write) works", async () => {
      world = await hookWorld(wire, {
        hooks: ({ logCommand }) => ({
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                {
                  type: "command",
                  command:
                    "jq -r '.tool_input.command' | grep -q 'git push' && { echo 'Blocked: no pushes' >&2; exit 2; } || exit 0",
                },
              ],
            },
          ],
          PostToolUse: [
            {
              matcher: "Edit|Write",
              hooks: [{ type: "command", command: logCommand("fmt"), timeout: 30 }],
            },
          ],
        }),
      });
      const { w } = world;
      await w.child.call("session.create", {});
      world.call("shell", { command: "git push origin main" }, "call_push");
      world.call("write_file", { path: "f.txt", content: "x\n" }, "call_write");
      world.reply("Done.");
      const run = await runApproving(w.child, "ship", "full_access", []);
      const done = bodiesOf(run.events, "tool_done");
      assert.equal(done[0]?.status, "denied");
      assert.equal(done[1]?.status, "completed");
      assert.ok((world.requests()[1] ?? "").includes("Blocked: no pushes"));
      const logged = loggedHooks(world.logDir);
      assert.equal(logged.length, 1);
      assert.equal(
        (logged[0]?.input.tool_input as Record<string, unknown> | undefined)?.file_path,
        join(w.box.workspace, "f.txt"),
      );
    });
  });
}

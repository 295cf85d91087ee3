import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CaseContext, ConformanceCase } from "../case.js";
import {
  type ChatServer,
  call,
  type SeenRequest,
  startChatServer,
  text,
  toolCalls,
} from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { readyOrSkip } from "../skip.js";
import { bodiesOf, historyOf, runTurn, type TurnEvent } from "../turn-driver.js";
import { TURN_CAPABILITIES, turnChildOptions, writeTurnHome } from "../turn-world.js";

/**
 * Hooks (docs/hooks.md): commands of the user's `config.json` in Claude Code's format, run at
 * fixed moments of a turn whether or not the frontend negotiated `hooks`; with `hooks`
 * negotiated each run is framed by `hook_started` and `hook_done` turn events. Set up only as
 * docs/hooks.md documents: `hooks` in `MC_HOME/config.json` (global, so no trust is needed).
 */
const HOOK_CAPABILITIES = [...TURN_CAPABILITIES, "hooks"];

const CLAUSE_EVENTS =
  "docs/hooks.md, Events on the wire: with `hooks` negotiated each hook run of a turn is framed by hook_started {hook_id, event, command} and hook_done {hook_id, status, duration_ms, message}; PreToolUse runs after the call's tool_call, before it runs, with Claude Code's stdin fields.";

interface HookWorld {
  child: TestChild;
  server: ChatServer;
  /** A file in the case's temp root, outside the workspace (hooks are not sandboxed). */
  outside: (name: string) => string;
}

/** The kit's turn world (turn-world.ts) with `hooks` added to `MC_HOME/config.json`. */
async function withHooks(
  ctx: CaseContext,
  hooks: (outside: (name: string) => string) => unknown,
  body: (world: HookWorld) => Promise<void>,
  capabilities = HOOK_CAPABILITIES,
): Promise<void> {
  const server = await startChatServer();
  try {
    writeTurnHome(ctx.box, server.baseUrl);
    const outside = (name: string) => join(ctx.box.root, name);
    const path = join(ctx.box.home, "config.json");
    const config = JSON.parse(readFileSync(path, "utf8"));
    config.hooks = hooks(outside);
    writeFileSync(path, JSON.stringify(config, null, 2));
    const child = await readyOrSkip(ctx, capabilities, turnChildOptions());
    await body({ child, server, outside });
  } finally {
    await server.close();
  }
}

/** One `command` hook in a matcher group. */
const group = (command: string, matcher?: string) => [
  { ...(matcher === undefined ? {} : { matcher }), hooks: [{ type: "command", command }] },
];

/** A command that writes its stdin to `file` (single quotes: the temp root has no quote). */
const saveStdin = (file: string) => `cat > '${file}'`;

// biome-ignore lint/suspicious/noExplicitAny: the Chat Completions wire body, read freely.
type Loose = any;

function toolResult(request: SeenRequest | undefined, id: string): Loose {
  return (request?.body?.messages ?? []).find(
    (m: Loose) => m.role === "tool" && m.tool_call_id === id,
  );
}

const indexOf = (events: TurnEvent[], type: string, from = 0) =>
  events.findIndex((e, i) => i >= from && e.event.type === type);

export const HOOK_CASES: ConformanceCase[] = [
  {
    id: "hooks.events.pre_tool_use",
    tier: "MUST",
    clause: CLAUSE_EVENTS,
    title: "a PreToolUse hook: hook_started/hook_done between the call's tool_call and tool_done",
    async run(ctx) {
      writeFileSync(join(ctx.box.workspace, "notes.txt"), "alpha\n");
      await withHooks(
        ctx,
        (outside) => ({ PreToolUse: group(saveStdin(outside("pre.json")), "Read") }),
        async ({ child, server, outside }) => {
          const { session } = await child.call("session.create", {});
          server.reply(
            toolCalls([call("read_file", { path: "notes.txt" }, "call_read")]),
            text("Read."),
          );
          const { result, events } = await runTurn(child, "Read the notes", "read_only");
          assert.equal(result.status, "completed");
          const started = bodiesOf(events, "hook_started");
          const done = bodiesOf(events, "hook_done");
          assert.equal(started.length, 1, "one hook run, one hook_started");
          assert.equal(started[0]?.event, "PreToolUse");
          assert.equal(started[0]?.command, saveStdin(outside("pre.json")));
          assert.deepEqual(
            done.map((d) => [d.hook_id, d.status]),
            [[started[0]?.hook_id, "ok"]],
            "its hook_done, with its hook_id, ok",
          );
          const call0 = indexOf(events, "tool_call");
          const hookStart = indexOf(events, "hook_started");
          const hookDone = indexOf(events, "hook_done");
          const toolDone = indexOf(events, "tool_done");
          assert.ok(
            call0 < hookStart && hookStart < hookDone && hookDone < toolDone,
            "tool_call, hook_started, hook_done, tool_done in that order",
          );
          const stdin = JSON.parse(readFileSync(outside("pre.json"), "utf8"));
          assert.equal(stdin.hook_event_name, "PreToolUse");
          assert.equal(stdin.session_id, session.id);
          assert.equal(stdin.cwd, ctx.box.workspace);
          assert.equal(stdin.tool_name, "read_file");
          assert.equal(stdin.tool_use_id, "call_read");
          assert.equal(stdin.tool_input?.path, "notes.txt");
          assert.equal(stdin.tool_input?.file_path, join(ctx.box.workspace, "notes.txt"));
          assert.match(String(toolResult(server.requests[1], "call_read")?.content), /alpha/);
        },
      );
    },
  },
  {
    id: "hooks.pre_tool_use.deny",
    tier: "MUST",
    clause:
      "docs/hooks.md, Decisions: a PreToolUse hook that exits 2 denies the call (tool_done `denied`, hook_done `blocked`); the model's tool result carries the hook's stderr; the tool never runs.",
    title: "PreToolUse exit 2 on shell: denied, the model gets the reason, nothing runs",
    async run(ctx) {
      const guard = "echo 'pushes to main are not allowed' >&2; exit 2";
      await withHooks(
        ctx,
        () => ({ PreToolUse: group(guard, "Bash") }),
        async ({ child, server }) => {
          await child.call("session.create", {});
          server.reply(
            toolCalls([call("shell", { command: "touch ran.txt" }, "call_sh")]),
            text("Understood."),
          );
          // full_access: without the hook's denial the command would run unasked.
          const { result, events } = await runTurn(child, "Push it", "full_access");
          assert.equal(result.status, "completed");
          assert.deepEqual(
            bodiesOf(events, "tool_done").map((d) => d.status),
            ["denied"],
          );
          assert.deepEqual(
            bodiesOf(events, "hook_done").map((d) => d.status),
            ["blocked"],
          );
          assert.equal(bodiesOf(events, "approval_requested").length, 0, "nothing is asked");
          assert.ok(!existsSync(join(ctx.box.workspace, "ran.txt")), "the command never ran");
          const answer = toolResult(server.requests[1], "call_sh");
          assert.match(String(answer?.content), /pushes to main are not allowed/);
        },
      );
    },
  },
  {
    id: "hooks.user_prompt_submit.blocked",
    tier: "MUST",
    clause:
      "docs/hooks.md, Decisions: a UserPromptSubmit hook that exits 2 refuses turn.start with `prompt_blocked`, its message the hook's stderr; nothing is written, sent or emitted.",
    title: "UserPromptSubmit exit 2: prompt_blocked, no event, no model call, history unchanged",
    async run(ctx) {
      const gate = "echo 'name a ticket first' >&2; exit 2";
      await withHooks(
        ctx,
        () => ({ UserPromptSubmit: group(gate) }),
        async ({ child, server }) => {
          const { session } = await child.call("session.create", {});
          server.otherwise(text("Should not be asked."));
          const before = await historyOf(child, session.id);
          const id = "turn_blocked";
          child.send({ id, method: "turn.start", params: { input: "Do the thing" } });
          const frame = await child.waitFor((f) => f.id === id, 60_000);
          const error = frame.error as { code?: string; message?: string } | undefined;
          assert.equal(error?.code, "prompt_blocked", JSON.stringify(frame));
          assert.match(String(error?.message), /name a ticket first/);
          const sentEvents = child.frames.filter(
            (f) => (f as { params?: { request_id?: string } }).params?.request_id === id,
          );
          assert.equal(sentEvents.length, 0, "no turn.event for a blocked prompt");
          assert.equal(server.requests.length, 0, "nothing is sent to the model");
          assert.deepEqual(await historyOf(child, session.id), before, "nothing is written");
        },
      );
    },
  },
  {
    id: "hooks.not_negotiated",
    tier: "MUST",
    clause:
      "docs/hooks.md, Events on the wire: hooks run whether or not a frontend negotiated `hooks`; only hook_started and hook_done need it.",
    title: "without hooks negotiated: the hooks run, no hook event is sent",
    async run(ctx) {
      writeFileSync(join(ctx.box.workspace, "notes.txt"), "alpha\n");
      await withHooks(
        ctx,
        (outside) => ({
          UserPromptSubmit: group(saveStdin(outside("prompt.json"))),
          PreToolUse: group(saveStdin(outside("pre.json"))),
          Stop: group(saveStdin(outside("stop.json"))),
        }),
        async ({ child, server, outside }) => {
          await child.call("session.create", {});
          server.reply(
            toolCalls([call("read_file", { path: "notes.txt" }, "call_read")]),
            text("Read."),
          );
          const { result, events } = await runTurn(child, "Read the notes", "read_only");
          assert.equal(result.status, "completed");
          for (const name of ["prompt.json", "pre.json", "stop.json"])
            assert.ok(existsSync(outside(name)), `the ${name} hook ran all the same`);
          const hookEvents = events.filter((e) => e.event.type.startsWith("hook_"));
          assert.deepEqual(hookEvents, [], "no hook event without the capability");
        },
        TURN_CAPABILITIES,
      );
    },
  },
];

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import type { SeenRequest } from "../chat-server.js";
import { call, text, toolCalls } from "../chat-server.js";
import type { TestChild } from "../harness.js";
import { CaseSkipped } from "../skip.js";
import { bodiesOf, finishTurn, startTurn } from "../turn-driver.js";
import {
  TURN_CAPABILITIES,
  type TurnWorld,
  turnChildOptions,
  withTurnWorld,
} from "../turn-world.js";

/**
 * The `sandboxed` permission level (docs/turns.md "The sandboxed level", docs/tools.md "The
 * sandbox"), black-box: commands run without approval in the OS sandbox the child advertises in
 * `extensions.turn.sandbox`, write the workspace but not `.git/`, MC_HOME or /etc, reach no
 * network; `"sandbox": false` asks first. Where the child advertises no sandbox (null), those
 * cases skip with that reason, and the refusal case runs instead.
 */

/** The sandbox the child advertised at initialize. */
function advertised(child: TestChild): string | null {
  const init = child.frames[0]?.result as
    | { extensions?: { turn?: { sandbox?: unknown } } }
    | undefined;
  const sandbox = init?.extensions?.turn?.sandbox;
  assert.ok(
    sandbox === null || sandbox === "bubblewrap" || sandbox === "seatbelt",
    "extensions.turn.sandbox is bubblewrap, seatbelt or null",
  );
  return sandbox;
}

/** The world's sandbox, or a skip saying there is none on this machine. */
function sandboxOrSkip(world: TurnWorld): string {
  const sandbox = advertised(world.child);
  if (sandbox === null)
    throw new CaseSkipped("the child advertises no OS sandbox (extensions.turn.sandbox is null)");
  return sandbox;
}

/** The content of the tool message answering `callId`. */
function shown(request: SeenRequest | undefined, callId: string): string {
  const messages = (request?.body.messages ?? []) as { tool_call_id?: string; content?: string }[];
  const found = messages.find((m) => m.tool_call_id === callId);
  assert.ok(found, `the model saw the result of ${callId}`);
  return String(found.content);
}

/** Host /proc files a sandboxed command must not be able to write (none is ever written). */
const HOST_PROC_FILES = [
  "/proc/sys/vm/overcommit_ratio",
  "/proc/sys/kernel/core_pattern",
  "/proc/sysrq-trigger",
];

const shell = (command: string, id: string, extra: Record<string, unknown> = {}) =>
  call("shell", { command, ...extra }, id);

export const TURN_SANDBOXED_CASES: ConformanceCase[] = [
  {
    id: "turns.sandboxed.confined",
    tier: "MUST",
    clause:
      "docs/turns.md, the sandboxed level: shell runs without approval inside the OS sandbox; the workspace is writable except .git/ and .mc/; the rest of the filesystem (MC_HOME, /etc) is read-only or hidden; turn_started.sandbox and tool_call.sandboxed say so.",
    title: "sandboxed: workspace writes work unasked; .git, MC_HOME and /etc writes fail",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        const sandbox = sandboxOrSkip(world);
        const { child, server } = world;
        mkdirSync(join(ctx.box.workspace, ".git"), { recursive: true });
        writeFileSync(join(ctx.box.workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
        await child.call("session.create", {});
        server.reply(
          toolCalls([
            shell("echo kit > kit-made.txt && echo written", "c_in"),
            shell("echo x > .git/kit-evil", "c_git"),
            shell(`echo x > '${join(ctx.box.home, "kit-evil")}'`, "c_home"),
            shell("echo x > /etc/mc-kit-evil", "c_etc"),
          ]),
          text("Done."),
        );
        const { result, events } = await finishTurn(child, startTurn(child, "Work.", "sandboxed"));
        assert.equal(result.status, "completed");
        assert.deepEqual(bodiesOf(events, "approval_requested"), [], "nothing asked");
        assert.equal(bodiesOf(events, "turn_started")[0]?.sandbox, sandbox);
        for (const announced of bodiesOf(events, "tool_call"))
          assert.equal(announced.sandboxed, true, "tool_call says the command ran sandboxed");
        assert.equal(readFileSync(join(ctx.box.workspace, "kit-made.txt"), "utf8"), "kit\n");
        assert.match(shown(server.requests[1], "c_in"), /^written\n/);
        const done = bodiesOf(events, "tool_done").map((d) => d.status);
        assert.deepEqual(done, ["completed", "failed", "failed", "failed"]);
        for (const id of ["c_git", "c_home", "c_etc"])
          assert.match(shown(server.requests[1], id), /\[sandbox: /, `${id}: the sandbox's line`);
        assert.ok(!existsSync(join(ctx.box.workspace, ".git", "kit-evil")));
        assert.ok(!existsSync(join(ctx.box.home, "kit-evil")));
        assert.ok(!existsSync("/etc/mc-kit-evil"));
      });
    },
  },
  {
    id: "turns.sandboxed.host_proc",
    tier: "MUST",
    clause:
      "docs/turns.md, the sandboxed level: the host's /proc is read-only inside the sandbox, even for a command running as root: /proc/sys and /proc/sysrq-trigger cannot be opened for writing.",
    title: "sandboxed: /proc/sys and /proc/sysrq-trigger cannot be opened for writing",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        sandboxOrSkip(world);
        const { child, server } = world;
        // Only opened (`>>`: O_WRONLY|O_APPEND, nothing written): the kit never changes a host
        // value, even against a child whose sandbox lets the open through.
        const command = HOST_PROC_FILES.map(
          (path) => `( exec 3>>${path} ) 2>&1 && echo '${path} OPENED'`,
        ).join("; ");
        await child.call("session.create", {});
        server.reply(toolCalls([shell(command, "c_proc")]), text("Done."));
        const { result } = await finishTurn(child, startTurn(child, "Look.", "sandboxed"));
        assert.equal(result.status, "completed");
        const seen = shown(server.requests[1], "c_proc");
        assert.ok(!seen.includes("OPENED"), `a /proc file opened for writing: ${seen}`);
        for (const path of HOST_PROC_FILES) {
          // Absent from the host's kernel (no SysRq, say): nothing to protect.
          if (!existsSync(path)) continue;
          const line = seen.split("\n").find((l) => l.includes(`${path}:`)) ?? "";
          // EROFS as root; another user's open is refused by the file's mode first.
          assert.match(line, /Read-only file system|Permission denied/, path);
        }
      });
    },
  },
  {
    id: "turns.sandboxed.nested_git",
    tier: "MUST",
    clause:
      "docs/turns.md, the sandboxed level: every .git of the workspace, at any depth (folder or file), is read-only inside the sandbox; the rest of a nested repository is writable.",
    title: "sandboxed: a nested repository's .git/hooks and a nested .git file cannot be written",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        sandboxOrSkip(world);
        const { child, server } = world;
        const ws = ctx.box.workspace;
        mkdirSync(join(ws, "vendor", "lib", ".git", "hooks"), { recursive: true });
        mkdirSync(join(ws, "mod"));
        writeFileSync(join(ws, "mod", ".git"), "gitdir: ../.git/modules/mod\n");
        await child.call("session.create", {});
        server.reply(
          toolCalls([
            shell("echo evil > vendor/lib/.git/hooks/pre-commit", "c_hook"),
            shell("echo 'gitdir: ../evil' > mod/.git", "c_file"),
            shell("echo ok > vendor/lib/kit.txt && echo written", "c_lib"),
          ]),
          text("Done."),
        );
        const { result, events } = await finishTurn(child, startTurn(child, "Work.", "sandboxed"));
        assert.equal(result.status, "completed");
        assert.deepEqual(bodiesOf(events, "approval_requested"), [], "nothing asked");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["failed", "failed", "completed"],
        );
        assert.ok(!existsSync(join(ws, "vendor", "lib", ".git", "hooks", "pre-commit")));
        assert.equal(
          readFileSync(join(ws, "mod", ".git"), "utf8"),
          "gitdir: ../.git/modules/mod\n",
        );
        assert.equal(readFileSync(join(ws, "vendor", "lib", "kit.txt"), "utf8"), "ok\n");
      });
    },
  },
  {
    id: "turns.sandboxed.wide_workspace",
    tier: "MUST",
    clause:
      "docs/turns.md, the sandboxed level: no sandbox is offered for a workspace that is / or the home folder or holds MC_HOME or a credential folder: extensions.turn.sandbox is null there and turn.start with sandboxed is sandbox_unavailable, nothing run.",
    title: "a workspace that is $HOME or holds MC_HOME: no sandbox advertised, sandboxed refused",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        // Refused before any model call or command: nothing is queued on the server, nothing
        // could run. Only meaningful where the child has a sandbox for an ordinary workspace.
        if (advertised(child) === null)
          throw new CaseSkipped(
            "the child advertises no OS sandbox even for an ordinary workspace",
          );
        const wide: { cwd: string; env?: Record<string, string> }[] = [
          // The home folder is the workspace.
          { cwd: ctx.box.workspace, env: { HOME: ctx.box.workspace } },
          // The workspace holds MC_HOME (and the home folder, here the same folder).
          { cwd: ctx.box.root },
        ];
        for (const where of wide) {
          const other = await ctx.ready(TURN_CAPABILITIES, {
            ...turnChildOptions(),
            cwd: where.cwd,
            env: { ...turnChildOptions().env, ...where.env },
          });
          assert.equal(advertised(other), null, "no sandbox advertised for that workspace");
          await other.call("session.create", {});
          const before = server.requests.length;
          const reply = await other.request("turn.start", {
            input: "Go.",
            permissions: "sandboxed",
          });
          assert.equal(reply.error?.code, "sandbox_unavailable");
          assert.equal(server.requests.length, before, "no model call");
          await other.close();
        }
      });
    },
  },
  {
    id: "turns.sandboxed.no_network",
    tier: "MUST",
    clause:
      'docs/turns.md, the sandboxed level: no network unless the user\'s config sets "sandbox": {"network": true}; a connect to a loopback server fails.',
    title: "sandboxed: a TCP connect to the kit's own loopback server fails",
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        sandboxOrSkip(world);
        const { child, server } = world;
        const port = new URL(server.baseUrl).port;
        await child.call("session.create", {});
        server.reply(
          toolCalls([shell(`echo hi > /dev/tcp/127.0.0.1/${port} && echo connected`, "c_net")]),
          text("Done."),
        );
        const { result, events } = await finishTurn(child, startTurn(child, "Go.", "sandboxed"));
        assert.equal(result.status, "completed");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["failed"],
        );
        const seen = shown(server.requests[1], "c_net");
        assert.ok(!seen.includes("connected"), "the connect failed");
        assert.equal(server.requests.length, 2, "only the two model calls reached the server");
      });
    },
  },
  {
    id: "turns.sandboxed.escalation",
    tier: "MUST",
    clause:
      'docs/turns.md, the sandboxed level: shell with "sandbox": false always needs an approval, as under ask; a denied one does not run, and asking again asks again.',
    title: 'sandboxed: "sandbox": false asks; denied, nothing runs; asked again next time',
    async run(ctx) {
      await withTurnWorld(ctx, async (world) => {
        sandboxOrSkip(world);
        const { child, server } = world;
        await child.call("session.create", {});
        const command = "echo out > escalated.txt";
        server.reply(
          toolCalls([shell(command, "c_1", { sandbox: false })]),
          toolCalls([shell(command, "c_2", { sandbox: false })]),
          text("Understood."),
        );
        const turn = startTurn(child, "Escalate.", "sandboxed");
        const answered = new Set<string>();
        for (let n = 0; n < 2; n++) {
          const asked = await turn.event("approval_requested", (e) => {
            const id = (e.event as { approval_id?: string }).approval_id;
            return id !== undefined && !answered.has(id);
          });
          const body = asked.event as { approval_id: string; kind: string; command: string };
          answered.add(body.approval_id);
          assert.equal(body.kind, "command");
          assert.equal(body.command, command);
          await child.call("turn.approve", { approval_id: body.approval_id, decision: "deny" });
        }
        const { result, events } = await finishTurn(child, turn);
        assert.equal(result.status, "completed");
        assert.equal(bodiesOf(events, "approval_requested").length, 2, "asked both times");
        assert.deepEqual(
          bodiesOf(events, "tool_done").map((d) => d.status),
          ["denied", "denied"],
        );
        for (const announced of bodiesOf(events, "tool_call"))
          assert.equal(announced.sandboxed, false);
        assert.ok(!existsSync(join(ctx.box.workspace, "escalated.txt")), "nothing ran");
      });
    },
  },
  {
    id: "turns.sandboxed.unavailable",
    tier: "MUST",
    clause:
      "docs/turns.md, the sandboxed level: when no sandbox can start (extensions.turn.sandbox null), turn.start with sandboxed is refused with sandbox_unavailable and nothing runs.",
    title: "no sandbox: turn.start sandboxed is sandbox_unavailable, no event, no model call",
    async run(ctx) {
      await withTurnWorld(ctx, async ({ child, server }) => {
        if (advertised(child) !== null)
          throw new CaseSkipped("the child has a sandbox here; the refusal cannot be seen");
        await child.call("session.create", {});
        server.reply(toolCalls([shell("echo ran > ran.txt", "c_1")]), text("Done."));
        const reply = await child.request("turn.start", { input: "Go.", permissions: "sandboxed" });
        assert.equal(reply.error?.code, "sandbox_unavailable");
        assert.equal(server.requests.length, 0, "no model call");
        assert.ok(!existsSync(join(ctx.box.workspace, "ran.txt")));
        const events = child.frames.filter(
          (f) => (f as { method?: string }).method === "turn.event",
        );
        assert.deepEqual(events, [], "no turn event");
      });
    },
  },
];

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { golden, runCli, scriptedEnv } from "../helpers/cli.js";
import { CLI_FIXTURE } from "../helpers/cli-fixture.js";
import { entry, scriptedDir, within, writeJson } from "../helpers/fakes.js";

/**
 * The CLI as a process, pointed (MC_AGENT_CHILD) at the scripted fake child that serves the
 * sessions and models methods per contract. Output is non-TTY: no color, no progress line.
 */
describe("CLI against the scripted child", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  let dir: string;
  beforeEach(() => {
    box = sandbox();
    dir = scriptedDir(box.root, CLI_FIXTURE);
    env = scriptedEnv(dir);
  });
  afterEach(() => box.cleanup());
  const run = (...args: string[]) => runCli(args, { cwd: box.workspace, env });

  const clean = (r: { stdout: string; stderr: string }) => {
    assert.ok(
      !r.stdout.includes("\x1b") && !r.stderr.includes("\x1b"),
      "no escape codes off a TTY",
    );
  };

  it("sessions --json prints exactly the validated result", async () => {
    const r = await run("sessions", "--json");
    assert.equal(r.code, 0);
    assert.equal(r.stderr, "");
    assert.equal(r.stdout, golden("sessions.json.txt", r.stdout));
    const parsed = JSON.parse(r.stdout) as { sessions: unknown[] };
    assert.equal(parsed.sessions.length, 3);
  });

  it("sessions prints a table with busy and unverified markers and the notices", async () => {
    const r = await run("sessions");
    assert.equal(r.code, 0);
    clean(r);
    assert.equal(r.stdout, golden("sessions.txt", r.stdout));
  });

  it("show opens exactly and renders the history readably", async () => {
    const r = await run("show", "fix-flaky-test");
    assert.equal(r.code, 0);
    clean(r);
    assert.equal(r.stdout, golden("show.txt", r.stdout));
  });

  it("models explains each provider with its exact next step, then the choices", async () => {
    const r = await run("models");
    assert.equal(r.code, 0);
    clean(r);
    assert.equal(r.stdout, golden("models.txt", r.stdout));
  });

  it("refresh: refreshed outcome, reloaded status, exit 0", async () => {
    const r = await run("refresh", "openai");
    assert.equal(r.code, 0);
    clean(r);
    assert.equal(r.stdout, golden("refresh-refreshed.txt", r.stdout));
  });

  it("refresh: failed outcome with its reason and next step, exit 1", async () => {
    const r = await run("refresh", "work");
    assert.equal(r.code, 1);
    clean(r);
    assert.equal(r.stdout, golden("refresh-failed.txt", r.stdout));
  });

  it("operation failures: one line on stderr with the code and what to do, exit 1", async () => {
    const missing = await run("show", "no-such-session");
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, "");
    assert.equal(
      missing.stderr,
      "mc-agent: No saved session has that ID (session_missing). List sessions to see the IDs available in this folder.\n",
    );
    const unknown = await run("refresh", "nobody");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^mc-agent: .+ \(invalid_params\)\. .+\n$/);
  });

  it("a backend without the capability: one clear line, exit 1", async () => {
    env.FAKE_CAPABILITIES = "session.open,session.history,operation.cancel";
    const r = await run("sessions");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^mc-agent: .*session\.discover.* \(unsupported_capability\)\. .+\n$/);
    assert.equal(r.stderr.split("\n").length, 2);
  });

  it("usage errors exit 2 with one line naming the fix", async () => {
    for (const args of [
      ["bogus"],
      ["sessions", "--bogus"],
      ["show"],
      ["refresh"],
      ["refresh", "a", "b"],
      // The backend commands too: an unknown flag must not start a child that ignores it.
      ["stdio", "--json"],
      ["stdio", "extra"],
      ["acp", "--bogus"],
    ]) {
      const r = await run(...args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
      const help = args[0] === "bogus" ? "mc-agent --help" : `mc-agent ${args[0]} --help`;
      assert.equal(r.stderr.split("\n").length, 2, args.join(" "));
      assert.ok(r.stderr.startsWith("mc-agent: "), args.join(" "));
      assert.ok(r.stderr.endsWith(`(usage_error). Run "${help}".\n`), r.stderr);
    }
    const bare = await run();
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^Usage: mc-agent <command>/);
  });

  it("--help on every command exits 0 without starting a child", async () => {
    env.MC_AGENT_CHILD = JSON.stringify(["/nonexistent"]);
    for (const command of [
      "sessions",
      "show",
      "models",
      "refresh",
      "demo",
      "exec",
      "chat",
      "stdio",
      "acp",
    ]) {
      const r = await run(command, "--help");
      assert.equal(r.code, 0, command);
      assert.match(r.stdout, new RegExp(`^Usage: mc-agent ${command}`), command);
    }
    const top = await run("--help");
    assert.equal(top.code, 0);
    for (const command of [
      "demo",
      "exec",
      "chat",
      "sessions",
      "show",
      "models",
      "refresh",
      "stdio",
    ])
      assert.match(top.stdout, new RegExp(`\\n  ${command}`));
  });

  it("a reader that goes away early (| head) ends the command quietly", async () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      entry(`s${i}`, `Title ${i} ${"x".repeat(60)}`),
    );
    writeJson(dir, "sessions.json", { sessions: many });
    env.FAKE_PAGE_ROWS = "1000";
    const proc = spawn(process.execPath, [CHILD_BIN, "sessions"], { cwd: box.workspace, env });
    let stderr = "";
    proc.stderr.setEncoding("utf8").on("data", (t: string) => {
      stderr += t;
    });
    proc.stdout.once("data", () => proc.stdout.destroy());
    const code = await within(
      new Promise<number | null>((resolve) => proc.on("close", resolve)),
      20_000,
    );
    assert.equal(code, 0);
    assert.equal(stderr, "");
    // The backend child does not outlive the command: it ends once the CLI is gone (and only
    // then may the sandbox go: it was still writing its request log into it).
    const pid = Number(readFileSync(join(dir, "spawns.log"), "utf8").trim().split("\n")[0]);
    await within(untilGone(pid), 10_000, "the scripted child's exit");
  });

  it("a malformed MC_AGENT_CHILD is a usage error", async () => {
    env.MC_AGENT_CHILD = "node stdio";
    const r = await run("models");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MC_AGENT_CHILD/);
  });
});

async function untilGone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

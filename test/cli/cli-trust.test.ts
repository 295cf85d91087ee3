/**
 * `mc-agent trust [--revoke]`, the piped chat's note and doctor's trust line (docs/trust.md,
 * "In the terminal"), as processes on real temp folders.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

function env(box: Sandbox): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, NO_COLOR: "1" };
}

function writeProject(box: Sandbox, config: object): void {
  mkdirSync(join(box.workspace, ".mc"), { recursive: true });
  writeFileSync(join(box.workspace, ".mc", "config.json"), JSON.stringify(config));
}

const PROJECT = {
  mcp_servers: { tracker: { command: "/nonexistent/tracker" } },
  hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] },
};

test("mc-agent trust names what it trusts, --revoke forgets it, and a piped chat only notes it", async () => {
  const box = sandbox("mc-cli-trust-");
  try {
    writeProject(box, PROJECT);
    const opts = { cwd: box.workspace, env: env(box) };
    // A piped chat never asks: it says what waits and what to run, and trusts nothing.
    const chat = await runCli(["chat", "--ignore-config-errors"], { ...opts, input: "" });
    assert.match(chat.stderr, /names MCP servers \(tracker\) and hooks; .*"mc-agent trust"/);
    assert.ok(!existsSync(join(box.home, "trust")));
    const trusted = await runCli(["trust"], opts);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /Trusted .*: MCP servers \(tracker\) and hooks run from the next/);
    assert.doesNotMatch(trusted.stdout, /nonexistent/, "never a command line");
    assert.equal(readdirSync(join(box.home, "trust")).length, 1);
    const quiet = await runCli(["chat", "--ignore-config-errors"], { ...opts, input: "" });
    assert.doesNotMatch(quiet.stderr, /mc-agent trust/, "a trusted folder is not asked about");
    const revoked = await runCli(["trust", "--revoke"], opts);
    assert.equal(revoked.code, 0);
    assert.match(revoked.stdout, /Revoked the trust of .*no longer run/);
    assert.deepEqual(readdirSync(join(box.home, "trust")), []);
    const extra = await runCli(["trust", "now"], opts);
    assert.equal(extra.code, 2);
  } finally {
    box.cleanup();
  }
});

test("mc-agent trust refuses an invalid project file and writes nothing", async () => {
  const box = sandbox("mc-cli-trust-bad-");
  try {
    writeProject(box, { mcp_servers: { tracker: { comand: "x" } } });
    const run = await runCli(["trust"], { cwd: box.workspace, env: env(box) });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /invalid, so none of it applies/);
    assert.ok(!existsSync(join(box.home, "trust")));
  } finally {
    box.cleanup();
  }
});

test("doctor says what waits for trust, then that it is trusted", async () => {
  const box = sandbox("mc-cli-trust-doctor-");
  try {
    writeProject(box, { hooks: PROJECT.hooks });
    const opts = { cwd: box.workspace, env: env(box), timeoutMs: 60_000 };
    const before = await runCli(["doctor"], opts);
    assert.match(
      before.stdout,
      /trust +not trusted: the project's hooks wait; "mc-agent trust" runs them/,
    );
    assert.equal((await runCli(["trust"], opts)).code, 0);
    const after = await runCli(["doctor"], opts);
    assert.match(after.stdout, /trust +trusted: the project's hooks run/);
    writeProject(box, { hooks: { Stop: [] } });
    const changed = await runCli(["doctor"], opts);
    assert.match(changed.stdout, /trust +changed since you trusted it/);
  } finally {
    box.cleanup();
  }
});

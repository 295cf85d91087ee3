import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Sandbox, sandbox } from "../../src/conformance/harness.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { type AcpProcess, startAcpProcess } from "../helpers/acp-process.js";

/**
 * `mc-agent acp`'s starter finds out what the first engine's `initialize` would (its sandbox, by
 * a real run of bubblewrap, and git) once it has answered the editor's `initialize`, while the
 * agent loads (src/acp/engine-facts.ts), and the first engine of that cwd adopts it
 * (sessions.ts): the sandbox has run before any `session/new` was sent, and that session's
 * engine does not run it again. Later engines find out for themselves. Seen through a fake
 * `bwrap` first on PATH that counts its runs.
 */

type Agent = AcpProcess;

const startAgent = (box: Sandbox, path: string, env: Record<string, string> = {}): Agent =>
  startAcpProcess(box, { PATH: path, ...env });

/** A fake bwrap that counts its runs in `count` and starts (exit 0) only at its first. */
function fakeBwrap(box: Sandbox): { path: string; runs: () => number } {
  const dir = join(box.root, "fake-bin");
  const count = join(box.root, "bwrap-runs");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "bwrap"),
    `#!/bin/sh\necho run >> "${count}"\n[ "$(wc -l < "${count}")" -eq 1 ] && exit 0\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n`,
  );
  chmodSync(join(dir, "bwrap"), 0o755);
  const runs = () => {
    try {
      return readFileSync(count, "utf8").split("\n").filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  return { path: `${dir}:${process.env.PATH ?? ""}`, runs };
}

/**
 * A world with a turn home and the counting fake bwrap first on PATH, and an agent started in
 * it (`env` added); `body` runs against them, then the agent is closed and the world removed.
 */
async function inWorld(
  prefix: string,
  env: Record<string, string>,
  body: (box: Sandbox, bwrap: ReturnType<typeof fakeBwrap>, agent: Agent) => Promise<void>,
): Promise<void> {
  const box = sandbox(prefix);
  try {
    writeTurnHome(box, "http://127.0.0.1:9/v1");
    const bwrap = fakeBwrap(box);
    const agent = startAgent(box, bwrap.path, env);
    try {
      await body(box, bwrap, agent);
    } finally {
      await agent.close();
    }
  } finally {
    box.cleanup();
  }
}

/** Waits (bounded) until `done`; false when the bound passed first. */
async function eventually(done: () => boolean, boundMs = 20_000): Promise<boolean> {
  for (const end = Date.now() + boundMs; Date.now() < end; await sleep(20)) if (done()) return true;
  return done();
}

const INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true }, terminal: true, auth: { terminal: true } },
  clientInfo: { name: "engine-facts-test", version: "1" },
};
const modes = (answer: Record<string, unknown>) =>
  (answer.result as { modes: { availableModes: { id: string }[] } }).modes.availableModes.map(
    (mode) => mode.id,
  );

describe("acp: the first engine's sandbox found while the agent loads", () => {
  it("runs before session/new is sent; that session's engine adopts it, the next probes again", () =>
    inWorld("mc-acp-engine-facts-", {}, async (box, bwrap, agent) => {
      assert.ok((await agent.request(0, "initialize", INITIALIZE)).result);
      assert.ok(await eventually(() => bwrap.runs() === 1), "the sandbox ran before session/new");
      const params = { cwd: box.workspace, mcpServers: [] };
      const first = await agent.request(1, "session/new", params);
      assert.ok(modes(first).includes("sandboxed"), JSON.stringify(first));
      assert.equal(bwrap.runs(), 1, "the first engine adopted that run");
      // Its own run, the fake's second, fails: no sandboxed mode for this one.
      const second = await agent.request(2, "session/new", params);
      assert.equal(bwrap.runs(), 2);
      assert.ok(!modes(second).includes("sandboxed"), JSON.stringify(second));
    }));

  it("an engine of another folder finds out for itself", () =>
    inWorld("mc-acp-engine-facts-other-", {}, async (box, bwrap, agent) => {
      const other = join(box.root, "other");
      mkdirSync(other);
      assert.ok((await agent.request(0, "initialize", INITIALIZE)).result);
      assert.ok(await eventually(() => bwrap.runs() === 1));
      const answer = await agent.request(1, "session/new", { cwd: other, mcpServers: [] });
      assert.equal(bwrap.runs(), 2, "its own run");
      assert.ok(!modes(answer).includes("sandboxed"), JSON.stringify(answer));
    }));

  it("with MC_AGENT_FAST_START=0 nothing runs before the first engine's own probe", () =>
    inWorld(
      "mc-acp-engine-facts-slow-",
      { MC_AGENT_FAST_START: "0" },
      async (box, bwrap, agent) => {
        assert.ok((await agent.request(0, "initialize", INITIALIZE)).result);
        assert.equal(bwrap.runs(), 0);
        const answer = await agent.request(1, "session/new", {
          cwd: box.workspace,
          mcpServers: [],
        });
        assert.equal(bwrap.runs(), 1);
        assert.ok(modes(answer).includes("sandboxed"), JSON.stringify(answer));
      },
    ));
});

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Sandbox } from "../../src/conformance/harness.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { type AcpProcess, startAcpProcess } from "../helpers/acp-process.js";
import { type FakeBwrapWorld, fakeBwrapWorld } from "../helpers/fake-bwrap.js";
import { until } from "../helpers/fakes.js";

/**
 * `mc-agent acp`'s first session answered from the probe memo (docs/acp.md, "Start-up"): when
 * the memo holds what the last real run of these very runs found, the first engine's
 * `initialize` answers from it and the real run is made after the session's answer, not on its
 * path. A memo the real run contradicts is rewritten, the session's engine goes by the real run
 * (set_mode), and the editor gets the `mode` option's corrected list. The fake bwrap starts or
 * fails as a file says, without itself changing (its identity is part of the memo's key), and
 * each world has a TMPDIR of its own (the memo lives in the private cache folder under it).
 */

const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

type World = FakeBwrapWorld;

function world(): World {
  const w = fakeBwrapWorld("mc-acp-probe-memo-", boxes, true);
  writeTurnHome(w.box, "http://127.0.0.1:9/v1");
  return w;
}

type Frame = Record<string, unknown>;

type Agent = AcpProcess;

const startAgent = (w: World): Agent => startAcpProcess(w.box, w.env);

const INITIALIZE = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true }, terminal: true, auth: { terminal: true } },
  clientInfo: { name: "probe-memo-test", version: "1" },
};

const modes = (answer: Frame) =>
  (answer.result as { modes: { availableModes: { id: string }[] } }).modes.availableModes.map(
    (mode) => mode.id,
  );

function modeOptionValues(note: Frame): string[] | null {
  const update = (note.params as { update?: Frame } | undefined)?.update;
  if (update?.sessionUpdate !== "config_option_update") return null;
  const options = update.configOptions as { id: string; options: { value: string }[] }[];
  return options.find((option) => option.id === "mode")?.options.map((o) => o.value) ?? null;
}

/** The sandbox each memo entry's runs found, newest first. */
function memoFindings(w: World): unknown[] {
  try {
    const memo = JSON.parse(readFileSync(w.memo, "utf8")) as { entries: { sandbox: unknown }[] };
    return memo.entries.map((entry) => entry.sandbox);
  } catch {
    return [];
  }
}

const memoSays = (w: World, kind: string | null) =>
  until(() => JSON.stringify(memoFindings(w)[0]) === JSON.stringify([kind]), "the memo");

/** initialize, then session/new in the workspace: the session/new's answer. */
async function firstSession(agent: Agent, w: World): Promise<Frame> {
  assert.ok((await agent.request(0, "initialize", INITIALIZE)).result);
  return agent.request(1, "session/new", { cwd: w.box.workspace, mcpServers: [] });
}

describe("acp: the first session's sandbox answered from the probe memo", () => {
  it("answers from the memo, runs the real probe after the answer, and corrects a wrong memo", async () => {
    const w = world();
    w.starts(true);
    // No memo yet: the real run decides the first session's modes and is remembered.
    let agent = startAgent(w);
    try {
      assert.ok(modes(await firstSession(agent, w)).includes("sandboxed"));
    } finally {
      await agent.close();
    }
    await memoSays(w, "bubblewrap");
    const runsBefore = w.runs();

    // The sandbox no longer starts, which nothing in the memo's key shows.
    w.starts(false);
    agent = startAgent(w);
    try {
      const answer = await firstSession(agent, w);
      const sessionId = (answer.result as { sessionId: string }).sessionId;
      // The memo's answer: the real run, which fails, had not decided it.
      assert.ok(modes(answer).includes("sandboxed"), JSON.stringify(answer));
      // The real run after the answer: the editor is told the modes it found.
      await until(() => agent.notes.some((n) => modeOptionValues(n)?.includes("ask")), "update");
      const corrected = agent.notes.map(modeOptionValues).find((values) => values !== null);
      assert.ok(corrected && !corrected.includes("sandboxed"), JSON.stringify(corrected));
      assert.equal(w.runs(), runsBefore + 1, "one real run");
      await memoSays(w, null);
      // The engine goes by the real run: the sandboxed mode is refused now.
      const set = await agent.request(2, "session/set_mode", { sessionId, modeId: "sandboxed" });
      assert.ok(set.error, JSON.stringify(set));
    } finally {
      await agent.close();
    }

    // The corrected memo answers the next start.
    agent = startAgent(w);
    try {
      const answer = await firstSession(agent, w);
      assert.ok(!modes(answer).includes("sandboxed"), JSON.stringify(answer));
    } finally {
      await agent.close();
    }
  });

  it("a memo the real run agrees with changes nothing the editor sees", async () => {
    const w = world();
    w.starts(true);
    let agent = startAgent(w);
    try {
      await firstSession(agent, w);
    } finally {
      await agent.close();
    }
    await memoSays(w, "bubblewrap");
    const runsBefore = w.runs();
    agent = startAgent(w);
    try {
      const answer = await firstSession(agent, w);
      assert.ok(modes(answer).includes("sandboxed"), JSON.stringify(answer));
      // The real run is still made, once, after the answer.
      await until(() => w.runs() === runsBefore + 1, "the real run");
      const set = await agent.request(2, "session/set_mode", {
        sessionId: (answer.result as { sessionId: string }).sessionId,
        modeId: "sandboxed",
      });
      assert.ok(set.result, JSON.stringify(set));
      assert.ok(
        agent.notes.every((n) => modeOptionValues(n)?.includes("sandboxed") !== false),
        "no mode list without sandboxed",
      );
    } finally {
      await agent.close();
    }
  });

  // Nothing runs early when the memo answers: the agent finds the facts with its own bundle's
  // code (cached), and the starter reads no dist/child/turn-facts.cjs (starter.ts `memoLikely`).
  it("a memo naming the workspace leaves the first engine's facts to the agent's own code", async () => {
    const w = world();
    w.starts(true);
    const preload = join(w.box.root, "note-facts-read.cjs");
    const noted = join(w.box.root, "turn-facts-read");
    writeFileSync(
      preload,
      `process.on("exit", () => {
  const read = Object.keys(require.cache).some((file) => file.endsWith("/child/turn-facts.cjs"));
  require("node:fs").writeFileSync(${JSON.stringify(noted)}, String(read));
});
`,
    );
    const env = { ...w.env, NODE_OPTIONS: `--require ${preload}` };
    const read: string[] = [];
    for (const round of ["no memo yet", "the memo answers"]) {
      const agent = startAcpProcess(w.box, env);
      try {
        assert.ok(modes(await firstSession(agent, w)).includes("sandboxed"), round);
      } finally {
        await agent.close();
      }
      read.push(readFileSync(noted, "utf8"));
      if (round === "no memo yet") await memoSays(w, "bubblewrap");
    }
    assert.deepEqual(read, ["true", "false"]);
  });
});

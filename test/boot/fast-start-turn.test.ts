import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { findOnPath } from "../../src/agent/tools/find-on-path.js";
import { PACKAGE_ROOT, type Sandbox, sandbox, TestChild } from "../../src/conformance/harness.js";
import { FRONTEND_START_CAPABILITIES } from "../helpers/frontend-start.js";

/**
 * The starter's answer to an initialize negotiating `turn` (src/boot/starter.ts,
 * src/server/turn-facts.ts): byte for byte the full child's (`MC_AGENT_FAST_START=0`) whatever
 * the sandbox, git, the settings' network flag and the workspace; given by the starter only when
 * proven (otherwise by the full child, as before); and what the child then does with its sandbox
 * is what the starter's probe found (adopted, not probed again).
 */

const TURN_CAPS = [...FRONTEND_START_CAPABILITIES];
const boxes: Sandbox[] = [];
after(() => {
  for (const box of boxes) box.cleanup();
});

function initFrame(id = "i1"): string {
  const params = {
    protocol_version: 1,
    client: { name: "fast-start-turn-test", version: "1.0.0" },
    required_capabilities: TURN_CAPS,
  };
  return `${JSON.stringify({ id, method: "initialize", params })}\n`;
}

/** A folder for PATH holding links to the named programs of this machine's PATH only. */
function pathOf(box: Sandbox, programs: string[]): string {
  const dir = join(box.root, `bin-${programs.join("-") || "none"}`);
  mkdirSync(dir, { recursive: true });
  for (const name of programs) {
    const found = findOnPath(name, process.env);
    assert.ok(found, `${name} is on this machine's PATH`);
    symlinkSync(found, join(dir, name));
  }
  return dir;
}

/** A fake `bwrap` (shell script) in a folder of its own, put first on PATH. */
function fakeBwrap(box: Sandbox, script: string): string {
  const dir = join(box.root, "fake-bin");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "bwrap"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, "bwrap"), 0o755);
  return `${dir}:${process.env.PATH}`;
}

interface World {
  env?: Record<string, string>;
  config?: string;
  /** The workspace is MC_HOME itself. */
  workspaceIsHome?: boolean;
}

interface Answer {
  line: string;
  /** Whether the starter answered (the full child builds the initialize's schema). */
  byStarter: boolean;
}

/** Spawns a child in a fresh world, sends the turn initialize; its answer line and who gave it. */
async function answerOf(
  world: World,
  fast: boolean,
  setUp?: (box: Sandbox) => World,
): Promise<Answer> {
  const box = sandbox("mc-fast-turn-");
  boxes.push(box);
  const more = setUp?.(box) ?? {};
  const config = more.config ?? world.config;
  if (config !== undefined) writeFileSync(join(box.home, "config.json"), config);
  const child = new TestChild({
    cwd: (more.workspaceIsHome ?? world.workspaceIsHome) ? box.home : box.workspace,
    home: box.home,
    testMethods: true,
    env: { ...world.env, ...more.env, ...(fast ? {} : { MC_AGENT_FAST_START: "0" }) },
  });
  try {
    await child.sendBytes(Buffer.from(initFrame()));
    await child.waitFor((f) => f.id === "i1");
    const schemas = await child.request("test.schemas", {});
    assert.ok(schemas.result, JSON.stringify(schemas.error));
    const built = (schemas.result as { built: string[] }).built;
    return {
      line: child.rawLines[0] as string,
      byStarter: !built.includes("lifecycle.InitializeParams"),
    };
  } finally {
    await child.close();
  }
}

/** Both paths' answers in the same kind of world: identical bytes; who answered. */
async function agree(world: World, setUp?: (box: Sandbox) => World): Promise<Answer> {
  const full = await answerOf(world, false, setUp);
  const fast = await answerOf(world, true, setUp);
  assert.equal(full.byStarter, false);
  assert.equal(fast.line, full.line);
  assert.ok("result" in JSON.parse(fast.line), fast.line);
  return fast;
}

function turnExtension(line: string): { sandbox: string | null; checkpoints: object } {
  return JSON.parse(line).result.extensions.turn;
}

describe("the starter's initialize negotiating turn is the full child's, byte for byte", () => {
  test("with bubblewrap and git on PATH", async () => {
    const fast = await agree({});
    assert.ok(fast.byStarter, "the starter answered");
  });

  test("without bubblewrap, without git, without either (PATH)", async () => {
    for (const programs of [["git"], ["bwrap"], []]) {
      const fast = await agree({}, (box) => ({ env: { PATH: pathOf(box, programs) } }));
      assert.ok(fast.byStarter, `the starter answered with ${programs.join(", ") || "nothing"}`);
      const turn = turnExtension(fast.line);
      if (!programs.includes("git"))
        assert.deepEqual(turn.checkpoints, { available: false, reason: "git_missing" });
      if (!programs.includes("bwrap")) assert.equal(turn.sandbox, null);
    }
  });

  test("with the network on, in a valid and in an invalid settings file, and a file not JSON", async () => {
    for (const config of [
      '{"sandbox": {"network": true}}',
      '{"sandbox": {"network": true}, "not_a_setting": 1}',
      '{"sandbox": {"network": "yes"}}',
      '{"sandbox": {"network": true',
      '{"sandbox": {"network": false}}',
    ]) {
      const fast = await agree({ config });
      assert.ok(fast.byStarter, `the starter answered with ${config}`);
    }
  });

  test("in a workspace that is MC_HOME (no sandbox, no checkpoints)", async () => {
    const fast = await agree({ workspaceIsHome: true });
    assert.ok(fast.byStarter);
    assert.deepEqual(turnExtension(fast.line), {
      ...turnExtension(fast.line),
      sandbox: null,
      checkpoints: { available: false, reason: "workspace_in_store" },
    });
  });

  test("a sandbox that starts only with the network on: proven only where the file says off", async () => {
    // Fails under --unshare-net (the network off), as bwrap does where the container forbids
    // a network namespace; starts otherwise.
    const script =
      'for a in "$@"; do [ "$a" = "--unshare-net" ] && { echo "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted" >&2; exit 1; }; done\nexit 0';
    const cases = [
      // A valid `true`: the child probes with the network on, the starter cannot know the file
      // is valid, and its two probes disagree: the full child answers.
      { config: '{"sandbox": {"network": true}}', sandbox: "bubblewrap", byStarter: false },
      // An invalid file is ignored whole: the network is off.
      { config: '{"sandbox": {"network": true}, "x": 1}', sandbox: null, byStarter: false },
      // Off in the raw file: off for the child too, proven without the schema.
      { config: '{"sandbox": {"network": false}}', sandbox: null, byStarter: true },
    ];
    for (const expected of cases) {
      const fast = await agree({ config: expected.config }, (box) => ({
        env: { PATH: fakeBwrap(box, script) },
      }));
      assert.equal(turnExtension(fast.line).sandbox, expected.sandbox, expected.config);
      assert.equal(fast.byStarter, expected.byStarter, expected.config);
    }
  });
});

describe("what the child does after the starter answered", () => {
  test("it adopts the starter's probe: a sandbox that would fail a second run still starts", async () => {
    const box = sandbox("mc-fast-turn-adopt-");
    boxes.push(box);
    // Starts at its first run only: a second probe would find no sandbox.
    const count = join(box.root, "bwrap-runs");
    const script = `n=$(cat "${count}" 2>/dev/null || echo 0)\necho $((n + 1)) > "${count}"\n[ "$n" = 0 ] && exit 0\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1`;
    const child = new TestChild({
      cwd: box.workspace,
      home: box.home,
      env: { PATH: fakeBwrap(box, script) },
    });
    try {
      await child.sendBytes(Buffer.from(initFrame()));
      const init = await child.waitFor((f) => f.id === "i1");
      assert.equal(turnExtension(child.rawLines[0] as string).sandbox, "bubblewrap");
      assert.ok(init.result);
      const created = await child.request("session.create", {});
      assert.ok(created.result, JSON.stringify(created.error));
      const turn = await child.request("turn.start", { input: "hi", permissions: "sandboxed" });
      // Refused for what a turn needs next (no model here), never for its sandbox.
      assert.notEqual(turn.error?.code, "sandbox_unavailable", JSON.stringify(turn));
      assert.equal(readFileSync(count, "utf8").trim(), "1", "one run of the sandbox per child");
    } finally {
      await child.close();
    }
  });

  test("requests written right behind it are answered in order, as the full child answers them", async () => {
    const behind = [
      { id: "s1", method: "status", params: {} },
      { id: "c1", method: "session.create", params: {} },
      { id: "s2", method: "status", params: {} },
    ];
    const bytes = `${initFrame()}${behind.map((f) => `${JSON.stringify(f)}\n`).join("")}`;
    const transcripts: string[][] = [];
    for (const fast of [true, false]) {
      const box = sandbox("mc-fast-turn-behind-");
      boxes.push(box);
      const child = new TestChild({
        cwd: box.workspace,
        home: box.home,
        env: fast ? {} : { MC_AGENT_FAST_START: "0" },
      });
      try {
        await child.sendBytes(Buffer.from(bytes));
        await child.waitFor((f) => f.id === "s2");
        transcripts.push(
          child.frames.map((f) =>
            JSON.stringify({
              id: f.id,
              ok: "result" in f,
              state: (f.result as { state?: unknown } | undefined)?.state,
            }),
          ),
        );
      } finally {
        await child.close();
      }
    }
    assert.deepEqual(transcripts[0], transcripts[1]);
    // A status is answered in the loop, ahead of the session.create still running.
    assert.deepEqual(
      transcripts[0]?.map((line) => JSON.parse(line).id),
      ["i1", "s1", "s2", "c1"],
    );
    assert.ok(transcripts[0]?.every((line) => JSON.parse(line).ok));
  });

  test("the code the starter loads for it holds no zod", () => {
    const meta = JSON.parse(
      readFileSync(join(PACKAGE_ROOT, "dist", "turn-facts-meta.json"), "utf8"),
    ) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    assert.ok(inputs.includes("dist/src/server/turn-facts.js"), inputs.join(", "));
    assert.deepEqual(
      inputs.filter((path) => /node_modules|schemas\//.test(path)),
      [],
    );
  });
});

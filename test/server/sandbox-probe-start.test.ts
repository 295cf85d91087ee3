import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Frame } from "../../src/conformance/frame.js";
import { sandbox, TestChild } from "../../src/conformance/harness.js";

/**
 * The child's sandbox probe (src/agent/sandbox/probe.ts) runs in the background from the
 * child's start (which follows the frontend's first frame: docs/local-agent-protocol.md, "Fast
 * start"), never on its event loop: an `initialize` that negotiates `turn` waits for it (its
 * extension says what was found), one that does not answers at once, and frames sent behind a
 * waiting initialize are answered after its result, in order. The sandbox is a real program on
 * PATH that holds until the test opens its gate (a file).
 */
const SKIP = process.platform !== "linux" ? "the bubblewrap probe runs on Linux only" : false;

function gatedBwrap(root: string) {
  const bin = join(root, "bin");
  mkdirSync(bin);
  const gate = join(root, "gate");
  const script = join(bin, "bwrap");
  // Says it started, then waits for the gate (at most about 60 s, so it never outlives a run).
  writeFileSync(
    script,
    `#!/bin/sh\n: > "${gate}.started"\ni=0\nwhile [ ! -e "${gate}" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done\nexit 0\n`,
  );
  chmodSync(script, 0o755);
  return {
    path: `${bin}:${process.env.PATH ?? ""}`,
    gate,
    started: () => existsSync(`${gate}.started`),
    open: () => writeFileSync(gate, ""),
  };
}

/**
 * A bwrap that logs each run's network (`net`, or `nonet` with --unshare-net) and starts only
 * for `starts`: otherwise it fails with an error line of its own, so the probe finds no sandbox.
 */
function networkBwrap(root: string, starts: "net" | "nonet") {
  const bin = join(root, "bin");
  mkdirSync(bin);
  const log = join(root, "runs");
  const script = join(bin, "bwrap");
  writeFileSync(
    script,
    `#!/bin/sh\nnet=net\nfor a in "$@"; do [ "$a" = "--unshare-net" ] && net=nonet; done\necho "$net" >> "${log}"\n[ "$net" = "${starts}" ] && exit 0\necho "bwrap: refused by the test" >&2\nexit 1\n`,
  );
  chmodSync(script, 0o755);
  return {
    path: `${bin}:${process.env.PATH ?? ""}`,
    runs: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
  };
}

/** The `turn` extension's sandbox of a child on `box` whose PATH finds `path`'s bwrap first. */
async function turnSandbox(box: ReturnType<typeof sandbox>, path: string, starter = true) {
  const env = { PATH: path, ...(starter ? {} : { MC_AGENT_FAST_START: "0" }) };
  const child = new TestChild({ cwd: box.workspace, home: box.home, env });
  try {
    const init = await child.initialize(["operation.cancel", "turn"]);
    assert.ok(init.result, JSON.stringify(init.error));
    return (init.result as { extensions: { turn: { sandbox: string | null } } }).extensions.turn
      .sandbox;
  } finally {
    await child.close();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const initialize = (id: string, capabilities: string[]) => ({
  id,
  method: "initialize",
  params: {
    protocol_version: 1,
    client: { name: "mc-agent-tests", version: "1.0.0" },
    required_capabilities: capabilities,
  },
});

describe("the sandbox probe starts with the child", { skip: SKIP }, () => {
  test("initialize with turn waits for it; frames behind it are answered after its result", async () => {
    const box = sandbox();
    const bwrap = gatedBwrap(box.root);
    const child = new TestChild({ cwd: box.workspace, home: box.home, env: { PATH: bwrap.path } });
    try {
      const answered: Frame[] = [];
      const init = child.waitFor((f) => f.id === "i1", 30_000).then((f) => answered.push(f));
      const status = child.waitFor((f) => f.id === "s1", 30_000).then((f) => answered.push(f));
      child.send(initialize("i1", ["operation.cancel", "turn"]));
      child.send({ id: "s1", method: "status", params: {} });
      await until(bwrap.started, "the probe to start");
      // Nothing is answered while the probe holds (absence, checked after a pause).
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(answered.length, 0, JSON.stringify(answered));
      bwrap.open();
      await Promise.all([init, status]);
      assert.deepEqual(
        answered.map((f) => f.id),
        ["i1", "s1"],
      );
      const [first, second] = answered;
      assert.ok(first?.result && second?.result, JSON.stringify(answered));
      const result = first.result as { extensions: { turn: { sandbox: string | null } } };
      assert.equal(result.extensions.turn.sandbox, "bubblewrap");
      assert.equal((second.result as { state: string }).state, "ready");
    } finally {
      bwrap.open();
      await child.close();
      box.cleanup();
    }
  });

  test("initialize without turn answers while the probe still runs", async () => {
    const box = sandbox();
    const bwrap = gatedBwrap(box.root);
    const child = new TestChild({ cwd: box.workspace, home: box.home, env: { PATH: bwrap.path } });
    try {
      const init = await child.initialize(["operation.cancel"]);
      assert.ok(init.result, JSON.stringify(init.error));
      // The child, loaded behind the answer, starts the probe; its status does not wait for it.
      await until(bwrap.started, "the probe to start");
      const status = await child.request("status", {});
      assert.equal((status.result as { state: string }).state, "ready");
      assert.ok(!existsSync(bwrap.gate), "the gate is still closed");
    } finally {
      bwrap.open();
      await child.close();
      box.cleanup();
    }
  });

  // The probe starts before the settings are validated, on the network setting the file most
  // likely holds (src/agent/sandbox/network-hint.ts); the answer is always the validated one's.
  test("a network setting the file's validation keeps is probed once, with the network", async () => {
    const box = sandbox();
    const bwrap = networkBwrap(box.root, "net");
    writeFileSync(join(box.home, "config.json"), JSON.stringify({ sandbox: { network: true } }));
    try {
      // The child alone (its first frame not the starter's to answer).
      assert.equal(await turnSandbox(box, bwrap.path, false), "bubblewrap");
      assert.deepEqual(bwrap.runs(), ["net"]);
    } finally {
      box.cleanup();
    }
  });

  // The starter cannot tell a valid file from an invalid one: it runs the sandbox both ways at
  // once, answers when both agree, and the child adopts the run of the setting it validates.
  test("through the starter, a raw `true` is probed with and without the network, once each", async () => {
    const box = sandbox();
    const bwrap = networkBwrap(box.root, "net");
    writeFileSync(join(box.home, "config.json"), JSON.stringify({ sandbox: { network: true } }));
    try {
      assert.equal(await turnSandbox(box, bwrap.path), "bubblewrap");
      assert.deepEqual(bwrap.runs().sort(), ["net", "nonet"]);
    } finally {
      box.cleanup();
    }
  });

  test("a network setting in an invalid file (ignored whole) is probed again without it", async () => {
    const box = sandbox();
    const bwrap = networkBwrap(box.root, "nonet");
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ sandbox: { network: true }, not_a_setting: 1 }),
    );
    try {
      assert.equal(await turnSandbox(box, bwrap.path), "bubblewrap");
      // The dropped probe is not waited for: its run may log after the one answered from.
      await until(() => bwrap.runs().length === 2, "both runs");
      assert.deepEqual(bwrap.runs().sort(), ["net", "nonet"]);
    } finally {
      box.cleanup();
    }
  });

  test("without a settings file the probe runs once, without the network", async () => {
    const box = sandbox();
    const bwrap = networkBwrap(box.root, "nonet");
    try {
      assert.equal(await turnSandbox(box, bwrap.path), "bubblewrap");
      assert.deepEqual(bwrap.runs(), ["nonet"]);
    } finally {
      box.cleanup();
    }
  });
});

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { PROTOCOL_VERSION } from "../../src/protocol/constants.js";
import { acpBoxEnv } from "../helpers/acp-process.js";
import { CHILD_BIN, sandbox, TestChild } from "../helpers/child.js";

/**
 * The stdio starter reads its first frame from fd 0 with `fs.readSync` and writes its answers
 * to fd 1 directly (src/boot/early-input.ts, output-watch.ts `writeAnswer`): Node's stdin and
 * stdout streams are made after its answer. Seen from outside: what Node had loaded when the
 * answer was written, and frames written late, split, from a file or through a non-blocking
 * descriptor, all answered in order.
 */
const box = sandbox("mc-early-input-");
after(() => box.cleanup());

const initialize = (id: string, capabilities: string[] = []) => ({
  id,
  method: "initialize",
  params: {
    protocol_version: PROTOCOL_VERSION,
    client: { name: "early-input-test", version: "1" },
    required_capabilities: capabilities,
  },
});
const line = (frame: object) => `${JSON.stringify(frame)}\n`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A preload that notes, at the first write to fd 1, whether Node had made its stream machinery
 * by then (the `net` module, which `process.stdin` and `process.stdout` load for a pipe), and
 * touches neither stream itself.
 */
const probe = join(box.root, "probe.cjs");
writeFileSync(
  probe,
  `const fs = require("node:fs");
const writeSync = fs.writeSync;
let seen = false;
fs.writeSync = function (fd, ...rest) {
  if (fd === 1 && !seen) {
    seen = true;
    const loaded = process.moduleLoadList;
    writeSync.call(fs, 2, "PROBE " + JSON.stringify({
      net: loaded.includes("NativeModule net"),
      stream: loaded.includes("NativeModule stream"),
    }) + "\\n");
  }
  return writeSync.call(this, fd, ...rest);
};
`,
);

describe("the stdio starter reads and answers without Node's streams", () => {
  for (const capabilities of [[], ["turn", "session.create", "model.catalog"]])
    test(`its answer to an initialize (${capabilities.join(", ") || "plain"}) is written before stdin or stdout is a stream`, async () => {
      // With `turn`, a start before leaves the probe memo this one answers from: a first start
      // in a workspace runs the sandbox's probe first, whose spawn makes pipes of its own.
      if (capabilities.includes("turn")) await startOnce(capabilities);
      const stderr = await startOnce(capabilities, ["--require", probe]);
      const seen = JSON.parse(/PROBE (.*)/.exec(stderr)?.[1] ?? "null");
      assert.deepEqual(seen, { net: false, stream: false }, stderr);
    });
});

test("mc-agent acp's answer to an editor's initialize is written before stdin or stdout is a stream", async () => {
  const agent = spawn(process.execPath, ["--require", probe, CHILD_BIN, "acp"], {
    cwd: box.workspace,
    env: { PATH: process.env.PATH ?? "", ...acpBoxEnv(box) },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  agent.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const answered = new Promise<void>((resolve) =>
    agent.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve();
    }),
  );
  // Terminal authentication offered: the starter answers whatever the home holds.
  const params = { protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } };
  agent.stdin.write(line({ jsonrpc: "2.0", id: 0, method: "initialize", params }));
  await answered;
  agent.stdin.end();
  await new Promise((done) => agent.once("exit", done));
  assert.ok(JSON.parse(out.split("\n")[0] ?? "").result, out);
  const seen = JSON.parse(/PROBE (.*)/.exec(err)?.[1] ?? "null");
  assert.deepEqual(seen, { net: false, stream: false }, err);
});

/** Starts the child with `flags` for node, initializes it, asks its status; its stderr. */
async function startOnce(capabilities: string[], flags: string[] = []): Promise<string> {
  const child = new TestChild({
    cwd: box.workspace,
    home: box.home,
    command: [process.execPath, ...flags, CHILD_BIN, "stdio"],
  });
  try {
    const init = await child.initialize(capabilities);
    assert.ok(init.result, JSON.stringify(init.error));
    const status = await child.request("status", {});
    assert.equal((status.result as { state: string }).state, "ready");
    return child.stderr;
  } finally {
    await child.close();
  }
}

describe("the child reads on where the starter stopped", () => {
  test("an initialize written late, split, then more: waited for and answered in order", async () => {
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      const first = line(initialize("i1", ["session.create"]));
      await pause(300);
      await child.sendBytes(Buffer.from(first.slice(0, 30)));
      await pause(100);
      await child.sendBytes(Buffer.from(first.slice(30)));
      await child.waitFor((f) => f.id === "i1");
      await pause(100);
      await child.sendBytes(Buffer.from(line({ id: "s1", method: "status", params: {} })));
      const status = await child.waitFor((f) => f.id === "s1");
      assert.equal((status.result as { requests_left: number }).requests_left, 4095);
      assert.deepEqual(
        child.frames.map((f) => f.id),
        ["i1", "s1"],
      );
    } finally {
      await child.close();
    }
  });

  test("a session.create written after the starter stopped waiting for it: the child's", async () => {
    const child = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      const init = await child.initialize(["session.create"]);
      assert.ok(init.result, JSON.stringify(init.error));
      // The starter waits at most 50 ms for it on the stream, which the child then reads on.
      await pause(300);
      const created = await child.request("session.create", {});
      assert.ok(created.result, JSON.stringify(created.error));
      const status = await child.request("status", {});
      assert.ok(status.result, JSON.stringify(status.error));
    } finally {
      await child.close();
    }
  });

  test("stdin a regular file: every frame answered in order, and its end an exit", async () => {
    const frames = join(box.root, "frames.jsonl");
    writeFileSync(
      frames,
      [
        line(initialize("i1", ["session.create"])),
        line({ id: "c1", method: "session.create", params: {} }),
        line({ id: "s1", method: "status", params: {} }),
      ].join(""),
    );
    const out = await runWithStdin(openSync(frames, "r"));
    assert.deepEqual(
      out.map((f) => [f.id, "result" in f]),
      [
        ["i1", true],
        ["c1", true],
        ["s1", true],
      ],
    );
  });

  test("stdin a non-blocking descriptor: read by the stream, every frame answered", async () => {
    const fifo = join(box.root, "frames.fifo");
    execFileSync("mkfifo", [fifo]);
    // Opened without blocking on both ends: the child's fd 0 is non-blocking, so the starter's
    // read finds nothing waiting (EAGAIN), and the child's stream reads the frames.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const ran = runWithStdin(reader);
    await pause(200);
    writeFileSync(
      writer,
      line(initialize("i1")) + line({ id: "s1", method: "status", params: {} }),
    );
    closeSync(writer);
    const out = await ran;
    assert.deepEqual(
      out.map((f) => [f.id, "result" in f]),
      [
        ["i1", true],
        ["s1", true],
      ],
    );
  });
});

/** Runs the child with fd 0 given (closed here once it runs) and returns the frames it wrote. */
async function runWithStdin(fd: number): Promise<{ id: string }[]> {
  const child = spawn(process.execPath, [CHILD_BIN, "stdio"], {
    cwd: box.workspace,
    env: { PATH: process.env.PATH ?? "", ...acpBoxEnv(box) },
    stdio: [fd, "pipe", "pipe"],
  });
  closeSync(fd);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await new Promise((done) => child.once("exit", done));
  assert.equal(code, 0, err);
  return out
    .split("\n")
    .filter((text) => text !== "")
    .map((text) => JSON.parse(text));
}

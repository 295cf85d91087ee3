import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, it } from "node:test";
import { FrameSplitter } from "../../src/protocol/framing.js";
import { deltaText } from "../fixtures/scripted-turns.js";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { entry, pause, requestLog, SCRIPTED_CHILD, scriptedDir, within } from "../helpers/fakes.js";

const STREAM_BYTES = 20 * 1024 * 1024;
const EVENT_BYTES = 65_536;

interface Frame {
  id?: string;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: string };
  params?: { seq: number; event: { type: string; text?: string } };
}

/** Peak resident memory of a live process, in bytes (Linux /proc), or null elsewhere. */
function peakRss(pid: number): number | null {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return null;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(path, "utf8"));
  return match ? Number(match[1]) * 1024 : null;
}

/**
 * Back-pressure through the real Dispatcher and stdio writer (the scripted child): a client
 * that stops reading while a turn streams 20 MB of deltas loses and reorders nothing, the child
 * keeps reading its stdin meanwhile, and its memory stays bounded.
 */
describe("a slow reader during a streaming turn", () => {
  let box: Sandbox;
  let dir: string;
  beforeEach(() => {
    box = sandbox();
    dir = scriptedDir(box.root, { "sessions.json": { sessions: [entry("s1")] } });
  });
  afterEach(() => box.cleanup());

  it("loses and reorders nothing, reads stdin while paused, and stays under 100 MB", async () => {
    const proc = spawn(SCRIPTED_CHILD[0] as string, SCRIPTED_CHILD.slice(1), {
      cwd: box.workspace,
      env: { PATH: process.env.PATH, FAKE_DIR: dir },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const frames: Frame[] = [];
    const splitter = new FrameSplitter(2 * 1024 * 1024);
    let onFrame: () => void = () => {};
    proc.stdout.on("data", (chunk: Buffer) => {
      for (const event of splitter.push(chunk)) {
        assert.equal(event.kind, "frame", "every frame within the bound");
        if (event.kind === "frame") frames.push(JSON.parse(Buffer.from(event.bytes).toString()));
      }
      onFrame();
    });
    const until = (what: string, check: () => boolean, ms = 60_000) =>
      within(
        new Promise<void>((resolve) => {
          onFrame = () => check() && resolve();
          onFrame();
        }),
        ms,
        what,
      );
    const answered = (id: string) => () => frames.some((f) => f.id === id);
    const send = (id: string, method: string, params: object) =>
      proc.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    try {
      send("init", "initialize", {
        protocol_version: 1,
        client: { name: "t", version: "1" },
        required_capabilities: ["turn", "session.open"],
      });
      send("open", "session.open", { id: "s1" });
      await until("open", answered("open"));
      proc.stdout.pause();
      const input = JSON.stringify({ steps: [{ stream: { bytes: STREAM_BYTES } }] });
      send("turn", "turn.start", { input });
      await pause(3000);
      send("st", "status", {});
      // Still paused: the child read the status request anyway (its tap logs what it reads).
      const deadline = Date.now() + 10_000;
      while (!requestLog(dir).includes("status") && Date.now() < deadline) await pause(50);
      assert.ok(requestLog(dir).includes("status"), "status read while the client is not reading");
      proc.stdout.resume();
      await until("status answer", answered("st"));
      const statusAt = frames.findIndex((f) => f.id === "st");
      await until("turn result", answered("turn"));
      const rss = peakRss(proc.pid as number);
      const turnAt = frames.findIndex((f) => f.id === "turn");
      assert.equal(turnAt, frames.length - 1, "the result comes after every event");
      const events = frames.filter((f) => f.method === "turn.event");
      assert.deepEqual(
        events.map((f) => f.params?.seq),
        events.map((_, i) => i),
        "seq gapless and in order",
      );
      const deltas = events.filter((f) => f.params?.event.type === "tool_output_delta");
      assert.equal(deltas.length, STREAM_BYTES / EVENT_BYTES);
      deltas.forEach((f, i) => {
        assert.equal(f.params?.event.text, deltaText(i, EVENT_BYTES), `delta ${i}`);
      });
      assert.ok(statusAt < frames.length / 4, `status answered early (frame ${statusAt})`);
      if (rss !== null) assert.ok(rss < 100 * 1024 * 1024, `peak RSS ${rss} bytes`);
      send("bye", "shutdown", {});
      await until("shutdown", answered("bye"));
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import {
  assertCancelled,
  assertCleanExit,
  delay,
  residentKiB,
  responsesTo,
  startSleep,
  untilActive,
  within,
} from "../expect.js";
import { nextId } from "../harness.js";

/**
 * Transport faults a frontend can cause: it stops reading stdout for seconds, or closes stdin
 * while requests are in flight. Frames must not be lost or reordered, memory must stay bounded,
 * and every admitted request still ends with exactly one terminal response.
 */
const CANCEL = ["operation.cancel"];
const EOF_CLAUSE =
  "base §1: EOF on stdin is a shutdown without a response. The child exits 0 after a clean shutdown.";

/** Enough pipelined statuses that their answers (~25 MB) dwarf any pipe buffer. */
const PRESSURE_FRAMES = 100_000;
const PRESSURE_PAUSE_MS = 3000;
/** Growth allowed while the reader stalls: far below what queueing every answer would take. */
const PRESSURE_RSS_BOUND_KIB = 32 * 1024;

export const FAULT_CASES: ConformanceCase[] = [
  {
    id: "faults.stdout_backpressure",
    tier: "MUST",
    clause:
      "base §2 and §3: Every admitted request gets exactly one terminal response; status and shutdown are answered on the protocol loop (a stalled reader must not make the child lose, reorder or hoard frames).",
    title: "a reader that stalls for 3 s loses nothing, reorders nothing, and memory stays bounded",
    async run({ ready }) {
      const child = await ready(CANCEL);
      const before = residentKiB(child.pid);
      const ids = Array.from({ length: PRESSURE_FRAMES }, (_, i) => `bp${i}`);
      const lines = ids.map((id) => `${JSON.stringify({ id, method: "status", params: {} })}\n`);
      const allAnswered = child.waitFor((f) => f.id === ids[ids.length - 1], 60_000);
      child.pauseOutput();
      // Written in chunks without waiting: the child must stop reading once stdout is full.
      const written = writeInChunks(child, lines);
      let peak = before ?? 0;
      for (let waited = 0; waited < PRESSURE_PAUSE_MS; waited += 250) {
        await delay(250);
        peak = Math.max(peak, residentKiB(child.pid) ?? 0);
      }
      child.resumeOutput();
      await within(written, 60_000, "writing the pipelined requests");
      await allAnswered;
      const answered = child.frames.filter((f) => f.id?.startsWith("bp"));
      assert.equal(answered.length, PRESSURE_FRAMES, "every request answered exactly once");
      const outOfOrder = answered.findIndex((f, i) => f.id !== ids[i]);
      assert.equal(outOfOrder, -1, `status answers reordered at position ${outOfOrder}`);
      assert.ok(
        answered.every((f) => f.result?.state === "ready"),
        "every answer is a status result",
      );
      if (before !== null) {
        const growth = peak - before;
        assert.ok(
          growth < PRESSURE_RSS_BOUND_KIB,
          `child RSS grew by ${growth} KiB while the reader stalled`,
        );
      }
    },
  },
  {
    id: "faults.stdin_eof.mid_request",
    tier: "MUST",
    clause: EOF_CLAUSE,
    title: "stdin closed while a request runs: one operation_cancelled, no other answer, exit 0",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 30_000);
      await untilActive(child, sleep.id);
      const framesBefore = child.frames.length;
      child.closeStdin();
      assertCancelled(await within(sleep.done, 3000, "terminal response"), "sleep at EOF");
      await assertCleanExit(child, 3000);
      assert.equal(child.frames.length, framesBefore + 1, "EOF itself is not answered");
    },
  },
  {
    id: "faults.stdin_eof.stubborn",
    tier: "MUST",
    clause: `${EOF_CLAUSE} base §5: wait at most cleanup_ms for it to drain.`,
    title: "stdin closed under an operation that ignores cancellation: answered within the bound",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const sleep = startSleep(child, 20_000, { stubborn: true });
      await untilActive(child, sleep.id);
      const started = Date.now();
      child.closeStdin();
      assertCancelled(await within(sleep.done, 4000, "terminal response"), "stubborn sleep");
      await assertCleanExit(child, 3000);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 2000 + 1500, `exit after ${elapsed} ms (cleanup bound 2000 ms)`);
    },
  },
  {
    id: "faults.stdin_eof.pipelined",
    tier: "MUST",
    clause: "base §2: Every admitted request gets exactly one terminal response.",
    title: "requests pipelined right before EOF are each answered exactly once",
    needsTestMethods: true,
    async run({ ready }) {
      const child = await ready(CANCEL);
      const ids: string[] = [];
      let text = "";
      for (let i = 0; i < 30; i += 1) {
        const id = nextId("eof");
        ids.push(id);
        const frame =
          i % 3 === 0
            ? { id, method: "test.sleep", params: { ms: i % 7 } }
            : { id, method: "status", params: {} };
        text += `${JSON.stringify(frame)}\n`;
      }
      child.send(text);
      child.closeStdin();
      await assertCleanExit(child, 4000);
      for (const id of ids) assert.equal(responsesTo(child, id), 1, `one answer to ${id}`);
    },
  },
  {
    id: "faults.stdin_eof.partial_frame",
    tier: "INFO",
    clause:
      "docs/conformance.md (implementation choice, contract silent): a final line without LF at EOF is still a frame.",
    title: "a last frame without its LF before EOF is still answered",
    async run({ spawn }) {
      const child = spawn();
      const id = nextId("tail");
      const answer = child.waitFor((f) => f.id === id, 3000);
      child.send(JSON.stringify({ id, method: "status", params: {} }));
      child.closeStdin();
      assert.equal((await answer).result?.state, "uninitialized");
      await assertCleanExit(child, 3000);
    },
  },
];

/** Writes lines in ~64 KiB chunks, each after the pipe took the previous one. */
async function writeInChunks(
  child: { sendBytes(b: Uint8Array): Promise<void> },
  lines: string[],
): Promise<void> {
  const perChunk = 1000;
  for (let i = 0; i < lines.length; i += perChunk) {
    await child.sendBytes(Buffer.from(lines.slice(i, i + perChunk).join("")));
  }
}

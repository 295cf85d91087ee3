import assert from "node:assert/strict";
import type { ConformanceCase } from "../case.js";
import type { TestChild } from "../harness.js";

const BASE = "base-protocol.md §2";
const MiB = 1_048_576;

/** Each bad frame with the code and echoed id it must get. */
const BAD_FRAMES: { name: string; line: string; code: string; id: string | null }[] = [
  {
    name: "truncated JSON",
    line: '{"id":"t1","method":"status"',
    code: "invalid_request",
    id: null,
  },
  {
    name: "array",
    line: '[{"id":"t2","method":"status","params":{}}]',
    code: "invalid_request",
    id: null,
  },
  { name: "string", line: '"status"', code: "invalid_request", id: null },
  { name: "number", line: "42", code: "invalid_request", id: null },
  { name: "null", line: "null", code: "invalid_request", id: null },
  { name: "blank line", line: "", code: "invalid_request", id: null },
  {
    name: "missing params",
    line: '{"id":"t3","method":"status"}',
    code: "invalid_request",
    id: "t3",
  },
  { name: "missing method", line: '{"id":"t4","params":{}}', code: "invalid_request", id: "t4" },
  {
    name: "missing id",
    line: '{"method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "extra envelope key",
    line: '{"id":"t5","method":"status","params":{},"jsonrpc":"2.0"}',
    code: "invalid_request",
    id: "t5",
  },
  {
    name: "numeric id",
    line: '{"id":7,"method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "empty id",
    line: '{"id":"","method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "65-char id",
    line: `{"id":"${"a".repeat(65)}","method":"status","params":{}}`,
    code: "invalid_request",
    id: null,
  },
  {
    name: "id with a space",
    line: '{"id":"a b","method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "id with a slash",
    line: '{"id":"a/b","method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "null id",
    line: '{"id":null,"method":"status","params":{}}',
    code: "invalid_request",
    id: null,
  },
  {
    name: "method not a string",
    line: '{"id":"t6","method":1,"params":{}}',
    code: "invalid_request",
    id: "t6",
  },
  {
    name: "params an array",
    line: '{"id":"t7","method":"status","params":[]}',
    code: "invalid_request",
    id: "t7",
  },
  {
    name: "params null",
    line: '{"id":"t8","method":"status","params":null}',
    code: "invalid_request",
    id: "t8",
  },
  {
    name: "unknown method",
    line: '{"id":"t9","method":"session.teleport","params":{}}',
    code: "method_not_found",
    id: "t9",
  },
  {
    name: "extra params field",
    line: '{"id":"t10","method":"status","params":{"verbose":true}}',
    code: "invalid_params",
    id: "t10",
  },
  {
    name: "wrong param type",
    line: '{"id":"t11","method":"initialize","params":{"protocol_version":"1","client":{"name":"x","version":"1"},"required_capabilities":[]}}',
    code: "invalid_params",
    id: "t11",
  },
  {
    name: "extra nested field",
    line: '{"id":"t12","method":"initialize","params":{"protocol_version":1,"client":{"name":"x","version":"1","os":"mac"},"required_capabilities":[]}}',
    code: "invalid_params",
    id: "t12",
  },
];

async function expectStillServing(child: TestChild): Promise<void> {
  const status = await child.request("status", {});
  assert.ok(status.result, "the child stopped serving after a bad frame");
}

/** Sends a raw line and returns the next frame answering it (matched by id, or the next null-id frame). */
async function answerTo(child: TestChild, line: string, id: string | null) {
  const response = child.waitFor((f) => f.id === id);
  child.send(`${line}\n`);
  return response;
}

export const FRAME_CASES: ConformanceCase[] = [
  {
    id: "base.frames.bad-frame-table",
    tier: "MUST",
    clause: `${BASE}: "A line that is not a JSON object gets invalid_request"; "Any other top-level key, or a missing one, is invalid_request (echo id when it is a valid ID, else null)"; "Unknown method: method_not_found"; params strict: invalid_params`,
    title: "every row of the bad-frame table gets its code, and the child keeps serving",
    async run(ctx) {
      const child = ctx.spawn();
      for (const row of BAD_FRAMES) {
        const frame = await answerTo(child, row.line, row.id);
        assert.equal(
          frame.error?.code,
          row.code,
          `${row.name}: expected ${row.code}, got ${JSON.stringify(frame)}`,
        );
        assert.equal(frame.id, row.id, `${row.name}: wrong id echoed`);
        await expectStillServing(child);
      }
    },
  },
  {
    id: "base.frames.invalid-utf8",
    tier: "MUST",
    clause: `${BASE}: "One UTF-8 JSON object per line"`,
    title: "a frame that is not valid UTF-8 is invalid_request",
    async run(ctx) {
      const child = ctx.spawn();
      const response = child.waitFor((f) => f.id === null);
      const head = Buffer.from('{"id":"u1","method":"status","params":{"x":"');
      child.sendBytes(Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]));
      assert.equal((await response).error?.code, "invalid_request");
      await expectStillServing(child);
    },
  },
  {
    id: "base.frames.frame-bytes-edge",
    tier: "MUST",
    clause: `${BASE}: "Inbound frames over limits.frame_bytes (1 MiB) are discarded up to the next LF and answered frame_too_large; the stream goes on."`,
    title:
      "a frame of exactly 1 MiB is read; 1 MiB + 1 byte is frame_too_large and the stream goes on",
    async run(ctx) {
      const child = ctx.spawn();
      const atBound = paddedStatus("edge1", MiB);
      assert.equal(Buffer.byteLength(atBound), MiB);
      // The padded status has an unknown params field, so a frame that was read gets invalid_params.
      const read = await answerTo(child, atBound, "edge1");
      assert.equal(read.error?.code, "invalid_params");
      const over = paddedStatus("edge2", MiB + 1);
      const tooLarge = await answerTo(child, over, null);
      assert.equal(tooLarge.error?.code, "frame_too_large");
      assert.equal(tooLarge.id, null);
      await expectStillServing(child);
      // A huge frame split across many writes is still discarded only up to its own LF.
      const response = child.waitFor((f) => f.id === null);
      const afterAnswer = child.waitFor((f) => f.id === "after");
      child.send("x".repeat(2 * MiB));
      child.send('\n{"id":"after","method":"status","params":{}}\n');
      assert.equal((await response).error?.code, "frame_too_large");
      const after = await afterAnswer;
      assert.ok(after.result);
    },
  },
  {
    id: "base.frames.max-id",
    tier: "MUST",
    clause: `${BASE}: "ID grammar: a string matching ^[A-Za-z0-9._:-]{1,64}$"`,
    title: "an ID of exactly 64 grammar characters is accepted",
    async run(ctx) {
      const child = ctx.spawn();
      const id = `A.b_c:d-${"9".repeat(56)}`;
      assert.equal(id.length, 64);
      const frame = await child.request("status", {}, id);
      assert.ok(frame.result);
    },
  },
  {
    id: "base.frames.stdout-only-frames",
    tier: "MUST",
    clause: `base-protocol.md §1: "stdout carries only protocol frames, stderr carries free-form logs"`,
    title: "everything on stdout is a JSON frame",
    async run(ctx) {
      const child = await ctx.ready(["operation.cancel"]);
      await child.request("status", {});
      child.send("garbage\n");
      await child.waitFor((f) => f.id === null);
      assert.deepEqual(child.garbage, []);
    },
  },
];

/** A status request padded (with an unknown params field) to exactly `bytes` bytes. */
function paddedStatus(id: string, bytes: number): string {
  const head = `{"id":"${id}","method":"status","params":{"pad":"`;
  const tail = '"}}';
  return head + "p".repeat(bytes - head.length - tail.length) + tail;
}

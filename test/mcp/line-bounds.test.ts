/**
 * The parts under the MCP stdio transport's bounds (docs/mcp.md, "Bounds on what a server
 * sends"): lines cut across chunks, a line past the bound kept only by its edges, and whose
 * answer an oversized line was.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BoundedLineReader } from "../../src/agent/mcp/line-reader.js";
import { oversizedAnswer, RESULT_TOO_LARGE } from "../../src/agent/mcp/oversized-answer.js";

/** The documented bound, stated here: a changed constant fails this test. */
const EDGE_BYTES = 4096;

test("lines across chunks, CRLF, and a line at the bound kept whole, one past it by its edges", () => {
  const reader = new BoundedLineReader(100);
  assert.deepEqual(reader.push(Buffer.from('{"a":')), []);
  assert.deepEqual(reader.push(Buffer.from('1}\r\n{"b":2}\nrest')), [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
  ]);
  reader.clear();
  const at = "x".repeat(100);
  assert.deepEqual(reader.push(Buffer.from(`${at}\n`)), [{ kind: "line", text: at }]);
  const past = `${"h".repeat(60)}${"m".repeat(EDGE_BYTES * 3)}${"t".repeat(41)}`;
  const lines = [
    ...reader.push(Buffer.from(past.slice(0, 70))),
    ...reader.push(Buffer.from(`${past.slice(70)}\n`)),
  ];
  assert.equal(lines.length, 1);
  const [line] = lines;
  assert.ok(line?.kind === "oversized");
  assert.equal(line.bytes, past.length);
  assert.equal(line.head, past.slice(0, EDGE_BYTES));
  assert.equal(line.tail, past.slice(-EDGE_BYTES));
  assert.deepEqual(reader.push(Buffer.from("next\n")), [{ kind: "line", text: "next" }]);
});

test("an oversized answer is found by its id, last or first; a request or notification is not one", () => {
  const error = (id: string | number) => ({
    jsonrpc: "2.0",
    id,
    error: { code: RESULT_TOO_LARGE, message: "the answer was 9 bytes, over the bound" },
  });
  assert.deepEqual(
    oversizedAnswer('{"result":{"content":[', 'x"}]},"jsonrpc":"2.0","id":7}', 9),
    error(7),
  );
  assert.deepEqual(
    oversizedAnswer('{"jsonrpc":"2.0","id":"a\\"b","result":{', "}}", 9),
    error('a"b'),
  );
  // A nested "id" at the end of the result is not the answer's.
  assert.equal(oversizedAnswer('{"result":{', '"item":{"id":3}}}', 9), null);
  assert.equal(
    oversizedAnswer('{"jsonrpc":"2.0","id":4,"method":"sampling/x","params":{', "}}", 9),
    null,
  );
  assert.equal(oversizedAnswer('{"method":"notifications/message","params":{', '"id":5}', 9), null);
  assert.equal(oversizedAnswer("not JSON at all", "noise", 9), null);
});

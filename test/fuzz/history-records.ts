import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { TestChild } from "../helpers/child.js";

/**
 * Every stub `session.history` sent (a record too large for a page) reads back through
 * `session.record` as exactly the record on disk at its index, each chunk within a page.
 * Returns how many stubs there were.
 */
export async function checkStubs(
  child: TestChild,
  id: string,
  records: Record<string, unknown>[],
  path: string,
): Promise<number> {
  const lines = readFileSync(path, "utf8").split("\n");
  let stubs = 0;
  for (const [at, record] of records.entries()) {
    if (record.oversize !== true) continue;
    stubs += 1;
    assert.equal(record.index, at, "a stub's index is its place in the history");
    let text = "";
    let cursor: string | null = null;
    do {
      const chunk: { text: string; offset: number; cursor: string | null } = await child.call(
        "session.record",
        cursor === null ? { id, index: at } : { id, index: at, cursor },
        30_000,
      );
      assert.equal(chunk.offset, Buffer.byteLength(text));
      text += chunk.text;
      cursor = chunk.cursor;
    } while (cursor !== null);
    assert.ok(text === lines[at]?.trim(), `record ${at} reads back as stored`);
    assert.equal(record.bytes, Buffer.byteLength(text));
  }
  return stubs;
}

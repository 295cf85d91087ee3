import assert from "node:assert/strict";
import { test } from "node:test";
import { validateCache } from "../../src/store/catalog-cache.js";
import { functionsMade } from "../helpers/functions-made.js";
import { cacheDoc, fingerprint } from "../models/fixtures.js";

/**
 * A model catalog cache's first check runs without zod's compiled fast path
 * (src/store/catalog-cache.ts, src/protocol/first-parse.ts): a start checks each provider's
 * cache once or twice, and compiling its schema was CPU time on the path to an ACP session's
 * answer (docs/benchmarks.md, "Targets of issue 44"). zod compiles with the global `Function`,
 * so this file, its own process, counts the functions made during the first check (not zod's
 * probe of whether it may compile at all, an empty `new Function("")`), and checks the verdicts
 * are the same as a compiled check's: a valid cache, and one whose model breaks the schema.
 */
const IDENTITY = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
const FINGERPRINT = fingerprint(IDENTITY.type, IDENTITY.base_url);
const valid = Buffer.from(JSON.stringify(cacheDoc("kit", IDENTITY, [{ id: "m1", name: "M 1" }])));
const broken = Buffer.from(
  JSON.stringify(cacheDoc("kit", IDENTITY, [{ id: "m1", name: 7 } as never])),
);

test("a cache's first check compiles nothing, and every check gives the same verdicts", () => {
  let first: unknown;
  const made = functionsMade(() => {
    first = validateCache(valid, "kit", FINGERPRINT);
  });
  assert.equal(made, 0, "zod compiled a fast path for the first check");
  assert.equal((first as { status: string }).status, "available");
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(validateCache(valid, "kit", FINGERPRINT), first);
    assert.deepEqual(validateCache(broken, "kit", FINGERPRINT), { status: "invalid_schema" });
  }
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildProtocolSchema } from "../src/protocol/json-schema.js";
import { PACKAGE_ROOT } from "./helpers/child.js";
import {
  arrowViolations,
  importCycles,
  readArrowTable,
  readSources,
} from "./helpers/import-map.js";

test("docs/protocol.schema.json is up to date (run `npm run schema`)", () => {
  const committed = readFileSync(join(PACKAGE_ROOT, "docs", "protocol.schema.json"), "utf8");
  assert.equal(committed, `${JSON.stringify(buildProtocolSchema(), null, 2)}\n`);
});

test("the published schema has no test-only method", () => {
  const schema = buildProtocolSchema() as { methods: Record<string, unknown> };
  assert.ok(!Object.keys(schema.methods).some((name) => name.startsWith("test.")));
  assert.ok("session.discover" in schema.methods && "operation.cancel" in schema.methods);
});

/** The allowed arrows: the table of docs/architecture.md, the map a newcomer reads. */
const ARROWS = readArrowTable(readFileSync(join(PACKAGE_ROOT, "docs", "architecture.md"), "utf8"));
const SOURCES = readSources(join(PACKAGE_ROOT, "src"));

test("imports follow the arrows of docs/architecture.md (no exceptions)", () => {
  assert.deepEqual(arrowViolations(SOURCES, ARROWS), []);
});

test("no import circle between files (static, dynamic and type-only imports)", () => {
  assert.deepEqual(importCycles(SOURCES), []);
});

test("the package's exports resolve: mc-agent/client and mc-agent/protocol", async () => {
  const client = await import("mc-agent/client");
  assert.equal(typeof client.AgentClient, "function");
  const protocol = await import("mc-agent/protocol");
  assert.equal(typeof protocol.METHODS, "object");
  assert.equal(protocol.LIMITS.frame_bytes, 1_048_576);
});

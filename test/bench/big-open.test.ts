import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { writeBigHistory } from "../../bench/big-history.js";
import { openAndAdmit, templateHistory } from "../../bench/big-open.js";
import { startBenchServer } from "../../bench/turn-server.js";
import { sandbox } from "../../src/conformance/harness.js";
import { answerEvents } from "../fixtures/chat-completions-server.js";

/**
 * The big-history open of bench/big-history.bench.ts, scaled down to prove it runs: a history
 * grown from a real session's records to 2 MB, opened by a fresh child that has started, then its
 * first turn admitted and completed; the figures are there. No timing is asserted
 * (docs/benchmarks.md has the figures).
 */
const BYTES = 2_000_000;

test("the big-history open bench runs, scaled down", async () => {
  const server = await startBenchServer();
  const box = sandbox("mc-test-big-open-");
  try {
    const from = await templateHistory(server, box);
    server.plan(() => ({ head: answerEvents({ text: ["Done."] }), rest: [] }));
    const id = randomUUID();
    const path = join(box.home, "sessions", `${id}.jsonl`);
    const bytes = writeBigHistory(from, path, id, box.workspace, BYTES);
    assert.ok(bytes >= BYTES, `${bytes} bytes written`);
    // Grown from the template's turns with fresh IDs: many turns, each ID once.
    const ids = readFileSync(path, "utf8").match(/"turn_id":"[^"]+"/g) ?? [];
    assert.ok(new Set(ids).size > 24, `${new Set(ids).size} turns`);
    // openAndAdmit throws unless the turn is admitted and completes.
    const side = await openAndAdmit(box, id);
    assert.ok(side.ms > 0 && side.cpu > 0 && side.rss > 0, JSON.stringify(side));
    assert.ok(statSync(path).size > bytes, "the turn's records appended");
  } finally {
    await server.close();
    box.cleanup();
  }
});

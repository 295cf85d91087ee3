import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceCase } from "../case.js";
import type { Frame } from "../frame.js";
import type { Sandbox, TestChild } from "../harness.js";
import { discoverAll, listAll, SESSION_CAPABILITIES, sessionsFolder } from "../session-store.js";
import { readyOrSkip } from "../skip.js";

/**
 * `session.history` returns events as stored, and every reader agrees on every record at any
 * nesting depth. Records are written here as raw text, exactly as a writer may store them: the
 * checks look at the bytes of the child's response line, not at a re-parsed value.
 */
const TS = "2026-11-29T10:00:00.000Z";

/** Writes a history of the given record lines (raw JSON text, LF-terminated). */
function writeRecords(box: Sandbox, id: string, records: string[]): void {
  writeFileSync(join(sessionsFolder(box), `${id}.jsonl`), `${records.join("\n")}\n`);
}

/** A valid record whose field `a` is `depth` nested arrays. */
function deepRecord(cwd: string, depth: number): string {
  return `{"type":"deep","ts":"${TS}","cwd":${JSON.stringify(cwd)},"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;
}

/** Asserts that the response line carries each record's text, verbatim and in order. */
function assertVerbatim(child: TestChild, frame: Frame, records: string[]): void {
  assert.ok(frame.result, `history failed: ${frame.error?.code}`);
  const line = child.lineOf(frame);
  let from = 0;
  for (const record of records) {
    const at = line.indexOf(record, from);
    assert.ok(at !== -1, `an event is not sent as stored: ${record.slice(0, 300)}`);
    from = at + record.length;
  }
  const events = frame.result.events as unknown[];
  assert.equal(events.length, records.length, "one event per record");
}

/** Sends all requests in one write and answers each one's frame, by ID. */
async function together(child: TestChild, requests: [string, object][]): Promise<Frame[]> {
  const frames = requests.map(([id]) => child.waitFor((f) => f.id === id, 60_000));
  const text = requests.map(([id, params]) =>
    JSON.stringify({ id, method: "session.history", params }),
  );
  child.send(`${text.join("\n")}\n`);
  return Promise.all(frames);
}

export const HISTORY_FIDELITY_CASES: ConformanceCase[] = [
  {
    id: "sessions.history.events_as_stored",
    tier: "MUST",
    clause:
      "base §6: session.history answers the session's events; docs/store.md: unknown types and extra fields are valid and kept (session.history returns them), each record's own bytes.",
    title:
      "history returns each record as stored: __proto__ kept, 1e400 and big integers as written, key order, escapes, whitespace",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const cwd = JSON.stringify(ctx.box.workspace);
      const records = [
        `{"type":"session_meta","ts":"${TS}","cwd":${cwd}}`,
        `{"ts":"${TS}","type":"note","__proto__":{"kept":true},"huge":1e400,"big":12345678901234567890123,"tiny":1.0e-400,"neg":-0}`,
        `{"type":"user_message","ts":"${TS}","text":"caf\\u00e9 \\/ \\ud83d\\ude00","dup":1,"dup":2}`,
        `{"type" : "spaced", "ts" : "${TS}",  "cwd" : ${cwd} }`,
      ];
      writeRecords(ctx.box, "stored", records);
      const frame = await child.request("session.history", { id: "stored" });
      assertVerbatim(child, frame, records);
      const events = frame.result?.events as Record<string, unknown>[];
      assert.ok(
        Object.hasOwn(events[1] ?? {}, "__proto__"),
        "the __proto__ field is an event field",
      );
      assert.equal(frame.result?.complete, true);
    },
  },
  {
    id: "sessions.history.deep_records",
    tier: "MUST",
    clause:
      "base §6: parser-valid is a JSON object with string type and ts; extensions: codes for every failure, none internal. A record valid for one reader is valid for all.",
    title:
      "records nested 5,000 to 150,000 deep are valid for list, discover and open; history returns them or, over a page, their stubs, never internal_error, and serves the next read",
    async run(ctx) {
      const child = await readyOrSkip(ctx, SESSION_CAPABILITIES);
      const cwd = ctx.box.workspace;
      const deep5k = deepRecord(cwd, 5_000);
      writeRecords(ctx.box, "deep5k", [deep5k]);
      writeRecords(ctx.box, "deep100k", [deepRecord(cwd, 100_000)]);
      writeRecords(ctx.box, "deep150k", [deepRecord(cwd, 150_000)]);
      const small = `{"type":"session_meta","ts":"${TS}","cwd":${JSON.stringify(cwd)}}`;
      writeRecords(ctx.box, "small", [small]);
      const ids = ["deep100k", "deep150k", "deep5k", "small"];
      const listed = await listAll(child);
      assert.equal(listed.error, undefined, JSON.stringify(listed.error?.error));
      assert.deepEqual([...listed.ids].sort(), ids, "list takes every deep record as valid");
      const found = await discoverAll(child);
      assert.equal(found.last.error, undefined, JSON.stringify(found.last.error));
      assert.deepEqual([...found.ids].sort(), ids, "discover agrees with list");
      for (const id of ids) {
        const opened = await child.request("session.open", { id });
        assert.equal(opened.error, undefined, `open ${id}: ${opened.error?.code}`);
      }
      // The deepest ones first, the healthy reads in the same write right behind them.
      const [d150, d100, d5, healthy, again] = await together(child, [
        ["h150", { id: "deep150k" }],
        ["h100", { id: "deep100k" }],
        ["h5", { id: "deep5k" }],
        ["hs", { id: "small" }],
        ["h150b", { id: "deep150k" }],
      ]);
      // 200 KB and 300 KB events cannot fit a 32 KiB page: each comes as its stub (docs/turns.md,
      // "Records larger than a page"), whatever its depth.
      for (const frame of [d150, d100, again]) {
        const events = (frame?.result?.events ?? []) as Record<string, unknown>[];
        assert.deepEqual(
          events.map((e) => [e.type, e.oversize, e.index]),
          [["deep", true, 0]],
          `${frame?.id}: ${frame?.error?.code}`,
        );
      }
      assertVerbatim(child, d5 as Frame, [deep5k]);
      assertVerbatim(child, healthy as Frame, [small]);
    },
  },
];

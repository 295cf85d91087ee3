import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "./frame.js";
import type { Sandbox, TestChild } from "./harness.js";

/**
 * Session stores for the scale cases, written the way `docs/store.md` describes them: primary
 * histories `MC_HOME/sessions/<id>.jsonl`, one SessionEvent per line. Big files are streamed to
 * disk in chunks, never built in memory whole.
 */
export const SESSION_CAPABILITIES = [
  "session.list",
  "session.discover",
  "session.open",
  "session.history",
  "session.create",
  "operation.cancel",
];

const TS = "2026-11-29T10:00:00.000Z";

export function sessionsFolder(box: Sandbox): string {
  const folder = join(box.home, "sessions");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}

/** One record line (with its LF) of exactly `bytes` bytes, `bytes` at least 100. */
export function recordOfSize(cwd: string, bytes: number, text = "x"): string {
  const head = JSON.stringify({ type: "user_message", ts: TS, cwd, text: "" });
  const pad = bytes - Buffer.byteLength(head) - 1;
  assert.ok(pad >= 0, "record too small for its envelope");
  const line = `${head.slice(0, -2)}${text.repeat(Math.ceil(pad / text.length)).slice(0, pad)}"}`;
  return `${line}\n`;
}

/** A small workspace history: a meta record and a titled user message. */
export function writeSmallHistory(box: Sandbox, id: string, title = `chat ${id}`): void {
  const cwd = box.workspace;
  const lines = [
    { type: "session_meta", ts: TS, cwd, id },
    { type: "user_message", ts: TS, cwd, text: title },
  ];
  writeFileSync(
    join(sessionsFolder(box), `${id}.jsonl`),
    `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
  );
}

/**
 * A workspace history of exactly `bytes` bytes made of records of `recordBytes` bytes each
 * (the last one sized to fit), streamed to disk.
 */
export function writeHistoryOfSize(
  box: Sandbox,
  id: string,
  bytes: number,
  recordBytes = 1024,
): void {
  const fd = openSync(join(sessionsFolder(box), `${id}.jsonl`), "w");
  try {
    const record = Buffer.from(recordOfSize(box.workspace, recordBytes));
    const chunk = Buffer.concat(Array.from({ length: 256 }, () => record));
    let left = bytes;
    while (left >= chunk.length + recordBytes) {
      writeSync(fd, chunk);
      left -= chunk.length;
    }
    while (left >= 2 * recordBytes) {
      writeSync(fd, record);
      left -= recordBytes;
    }
    writeSync(fd, Buffer.from(recordOfSize(box.workspace, left)));
  } finally {
    closeSync(fd);
  }
}

export interface Discovery {
  ids: string[];
  progress: string[];
  requests: number;
  last: Frame;
}

/** Follows session.discover cursors from a fresh scan to completion (or the first error). */
export async function discoverAll(child: TestChild, maxRequests = 3000): Promise<Discovery> {
  const ids: string[] = [];
  const progress: string[] = [];
  let cursor: string | null | undefined;
  for (let requests = 1; requests <= maxRequests; requests += 1) {
    const params = cursor ? { cursor } : {};
    const frame = await child.request("session.discover", params, undefined, 60_000);
    if (!frame.result) return { ids, progress, requests, last: frame };
    const result = frame.result as {
      sessions: { id: string }[];
      progress: string;
      cursor: string | null;
      complete: boolean;
    };
    ids.push(...result.sessions.map((s) => s.id));
    progress.push(result.progress);
    if (result.complete) return { ids, progress, requests, last: frame };
    assert.ok(result.cursor, "an incomplete discovery page carries a cursor");
    cursor = result.cursor;
  }
  throw new Error(`discovery did not complete within ${maxRequests} requests`);
}

/** Follows session.list cursors to the end; returns the IDs or the first error frame. */
export async function listAll(child: TestChild): Promise<{ ids: string[]; error?: Frame }> {
  const ids: string[] = [];
  let cursor: string | null | undefined;
  for (;;) {
    const frame = await child.request("session.list", cursor ? { cursor } : {}, undefined, 60_000);
    if (!frame.result) return { ids, error: frame };
    const result = frame.result as { sessions: { id: string }[]; cursor: string | null };
    ids.push(...result.sessions.map((s) => s.id));
    if (!result.cursor) return { ids };
    cursor = result.cursor;
  }
}

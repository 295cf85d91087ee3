import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { strictJsonProblem } from "../../src/protocol/well-formed.js";
import {
  type AnswerSpec,
  answerEvents,
  custom,
  type Script,
} from "../fixtures/chat-completions-server.js";
import type { Sandbox, TestChild } from "../helpers/child.js";

/**
 * What the persistence and crash tests read straight off the disk: a session's history bytes,
 * its lock, and the checks every history must pass whatever happened to its writer.
 */

export function historyPath(box: Sandbox, id: string): string {
  return join(box.home, "sessions", `${id}.jsonl`);
}

export function lockPath(box: Sandbox, id: string): string {
  return join(box.home, "sessions", `${id}.lock`);
}

export interface DiskRecord {
  type: string;
  ts: string;
  cwd?: string;
  turn_id?: string;
  [key: string]: unknown;
}

/** The history's whole records, and the bytes after the last LF (a torn tail, or ""). */
export function readHistory(box: Sandbox, id: string): { records: DiskRecord[]; tail: string } {
  const bytes = readFileSync(historyPath(box, id));
  // A torn tail may end inside a character; the whole records may not.
  assert.ok(isUtf8(bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1)), "the records are UTF-8");
  const text = bytes.toString("utf8");
  const lf = text.lastIndexOf("\n");
  const whole = text.slice(0, lf + 1);
  const records = whole
    .split("\n")
    .slice(0, -1)
    .map((line, index) => parseLine(line, index + 1));
  for (const record of records) {
    assert.equal(typeof record.type, "string", "every record has a type");
    assert.equal(typeof record.ts, "string", "every record has a ts");
  }
  return { records, tail: text.slice(lf + 1) };
}

function parseLine(line: string, number: number): DiskRecord {
  const problem = strictJsonProblem(line);
  if (problem !== null && problem !== "not JSON")
    throw new assert.AssertionError({
      message: `line ${number} of the history is refused by a strict decoder (${problem})`,
    });
  try {
    return JSON.parse(line) as DiskRecord;
  } catch {
    throw new assert.AssertionError({
      message: `line ${number} of the history is not JSON: ${line.slice(0, 200)}`,
    });
  }
}

/** The history ends with a whole record (LF-terminated), every line a record. */
export function assertWholeRecords(box: Sandbox, id: string): DiskRecord[] {
  const { records, tail } = readHistory(box, id);
  assert.equal(tail, "", "the history ends with a whole record");
  return records;
}

/** Every page of `session.history`, joined. */
export async function fullHistory(child: TestChild, id: string): Promise<DiskRecord[]> {
  const events: DiskRecord[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await child.call("session.history", { id, ...(cursor ? { cursor } : {}) });
    events.push(...(result.events as DiskRecord[]));
    if (result.complete || result.cursor === null) return events;
    cursor = result.cursor;
  }
  assert.fail("session.history did not complete in 100 pages");
}

/** Every page of `session.discover`, joined (the ids it saw). */
export async function discoveredIds(child: TestChild): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await child.call("session.discover", cursor ? { cursor } : {});
    ids.push(...result.sessions.map((s) => s.id));
    if (result.complete) return ids;
    assert.ok(result.cursor, "an incomplete discovery page has a cursor");
    cursor = result.cursor;
  }
  assert.fail("session.discover did not complete in 100 pages");
}

/**
 * The session is listed by `session.list` and `session.discover`, opens exactly, and its history
 * reads whole; returns the history's records. `busy` is the listing's hint: true exactly while a
 * lock file exists, even a dead writer's (docs/store.md, "Locks").
 */
export async function assertListedAndReadable(
  child: TestChild,
  id: string,
  busy = false,
): Promise<DiskRecord[]> {
  const list = await child.call("session.list", {});
  const entry = list.sessions.find((s) => s.id === id);
  assert.ok(entry, "session.list lists the session");
  assert.equal(entry.busy, busy, "the busy hint follows the lock file");
  assert.deepEqual(list.notices, [], "no history omitted as invalid");
  assert.ok((await discoveredIds(child)).includes(id), "session.discover lists the session");
  const opened = await child.call("session.open", { id });
  assert.equal(opened.session.id, id);
  return fullHistory(child, id);
}

/** A pid that belonged to a process that has exited (so no live process holds it now). */
export async function deadPid(): Promise<number> {
  const proc = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  const pid = proc.pid as number;
  await new Promise((resolve) => proc.on("exit", resolve));
  return pid;
}

/** The lock as a writer leaves it: `{"pid", "renewed_at"}` on one line. */
export function lockText(pid: number, renewedAt: Date): string {
  return `${JSON.stringify({ pid, renewed_at: renewedAt.toISOString() })}\n`;
}

export function exists(path: string): boolean {
  return existsSync(path);
}

export interface Gate {
  /** Resolves once the model call has started streaming (the lines before the gate sent). */
  reached: Promise<void>;
  open(): void;
}

/**
 * A streamed answer that sends its first `before` SSE lines, then waits for the test to open
 * the gate before sending the rest: a model call stalled on purpose, for as long as the test
 * needs to look at the disk.
 */
export function gated(spec: AnswerSpec, before = 2): { script: Script; gate: Gate } {
  let reach = () => {};
  let open = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const script = custom(async ({ request, res }) => {
    startStream(res);
    const lines = answerEvents(spec, request.body?.model);
    for (const line of lines.slice(0, before)) await write(res, line);
    reach();
    await opened;
    for (const line of lines.slice(before)) await write(res, line);
    res.end();
  });
  return { script, gate: { reached, open } };
}

/** A streamed answer with a pause between its SSE lines (a slow but healthy model). */
export function paced(spec: AnswerSpec, gapMs: number): Script {
  return custom(async ({ request, res }) => {
    startStream(res);
    for (const line of answerEvents(spec, request.body?.model)) {
      if (res.destroyed) return;
      await write(res, line);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    res.end();
  });
}

function startStream(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
}

function write(res: ServerResponse, line: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(line, () => resolve());
  });
}

import { read } from "node:fs";
import { promisify } from "node:util";
import type { RecordReadOptions } from "../records/facts.js";
import { RECORD_BYTES } from "../records/facts.js";
import { readRecordFacts } from "../records/read-facts.js";
import { isTornTail } from "../records/torn-tail.js";

/**
 * Where a writer appends to an existing history: after its last whole record. Found from the
 * end backwards (a writer never reads the whole history): the bytes after the last LF are the
 * last line; if that line is a torn tail (torn-tail.ts) it is cut before the first append,
 * if it is a valid record without its (optional) LF, the first append supplies the LF.
 */
export interface HistoryEnd {
  /** Where the next record starts: the file's length, or the torn tail's first byte. */
  end: number;
  /** A valid last record without its LF: the next append starts with one. */
  needsNewline: boolean;
}

/** The last line is longer than any record may be: not a history a writer may extend. */
export class TailOverLimit extends Error {
  constructor() {
    super("the history's last line exceeds the record byte limit");
    this.name = "TailOverLimit";
  }
}

const CHUNK_BYTES = 64 * 1024;

/** Only whether the last line is a record (else a torn tail), read as every reader reads it. */
const TAIL_READ: RecordReadOptions = { keepEventBytes: 0, wantUserLine: true, keepValue: false };

const LF = 0x0a;
const readAt = promisify(read);

export async function findHistoryEnd(fd: number, size: number): Promise<HistoryEnd> {
  if (size === 0) return { end: 0, needsNewline: false };
  const lineStart = await lastLineStart(fd, size);
  if (lineStart === size) return { end: size, needsNewline: false };
  // Readers call such a line over the record limit, torn or not (never one of our appends).
  if (size - lineStart > RECORD_BYTES) throw new TailOverLimit();
  const line = Buffer.allocUnsafe(size - lineStart);
  await readFully(fd, line, lineStart);
  const parsed = readRecordFacts(line, 0, line.length, TAIL_READ);
  const facts = parsed instanceof Promise ? await parsed : parsed;
  if (isTornTail({ terminated: false }, facts)) return { end: lineStart, needsNewline: false };
  return { end: size, needsNewline: true };
}

/** The offset just after the last LF (0 when there is none), searching at most one record back. */
async function lastLineStart(fd: number, size: number): Promise<number> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let to = size;
  while (to > 0) {
    const from = Math.max(0, to - CHUNK_BYTES);
    const slice = chunk.subarray(0, to - from);
    await readFully(fd, slice, from);
    const lf = slice.lastIndexOf(LF);
    if (lf !== -1) return from + lf + 1;
    to = from;
    if (size - to > RECORD_BYTES) throw new TailOverLimit();
  }
  if (size > RECORD_BYTES) throw new TailOverLimit();
  return 0;
}

async function readFully(fd: number, target: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const { bytesRead } = await readAt(fd, target, done, target.length - done, position + done);
    // The file shrank under the writer (which holds the lock): nothing sensible to append to.
    if (bytesRead === 0) throw Object.assign(new Error("history shrank"), { code: "EIO" });
    done += bytesRead;
  }
}

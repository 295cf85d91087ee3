import { fstatSync, readSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { LIMITS } from "../../protocol/constants.js";
import { utf8Length } from "../../protocol/raw-json.js";
import { headBytes, headJsonBytes } from "../../protocol/text-cut.js";
import { fileSignature } from "../../store/inventory.js";
import { historyFolder, primaryName } from "../../store/layout.js";
import { closeQuietly, openPrimary } from "../../store/safe-open.js";
import type { RecordReadOptions } from "../records/facts.js";
import { RECORD_BYTES } from "../records/facts.js";
import { readRecordFacts } from "../records/read-facts.js";
import { RecordReader } from "../records/record-reader.js";
import { isTornTail } from "../records/torn-tail.js";
import type { Slicer } from "../slicer.js";
import type { KnownRecords, RecordPlace } from "./known-records.js";
import { openExact } from "./open.js";

/**
 * `session.record`: one history record's own JSON text (exactly what `session.history` would
 * send for it, were it small enough), in chunks that each fit a page. The first call validates
 * the whole history as `session.open` does (unless `session.history` just stubbed that record
 * under the same signature); every call reopens the file and requires the signature the first
 * one saw, else `stale_revision`. A chunk is read from the file at its offset, so a call costs
 * one chunk whatever the record's size.
 */
export interface RecordPosition extends RecordPlace {
  id: string;
  signature: string;
  index: number;
  /** Bytes of the text already sent. */
  offset: number;
  /** In `sessions/archive/` (an archived session). */
  archived?: boolean;
}

interface RecordChunk {
  index: number;
  bytes: number;
  offset: number;
  text: string;
}

const LARGEST_ENVELOPE = {
  index: Number.MAX_SAFE_INTEGER,
  bytes: RECORD_BYTES,
  offset: RECORD_BYTES,
  text: "",
  cursor: "x".repeat(64),
  complete: false,
};
/** What one chunk's text may take inside its JSON string: the page less the result around it. */
const CHUNK_TEXT_BYTES = LIMITS.page_bytes - utf8Length(JSON.stringify(LARGEST_ENVELOPE));

const NO_RECORD = "The history has no record at that index.";

/** Only whether the last line is a record (else a torn tail). */
const VALIDITY_ONLY: RecordReadOptions = {
  keepEventBytes: 0,
  wantUserLine: false,
  keepValue: false,
};

/** The record's place, from `known` or by validating the history and counting its records. */
export async function locateRecord(
  home: string,
  canonicalCwd: string,
  id: string,
  index: number,
  slicer: Slicer,
  known: KnownRecords,
  archived = false,
): Promise<RecordPosition> {
  const where = archived ? { archived } : {};
  const current = currentSignature(home, id, archived);
  const place = current === null ? undefined : known.find(id, current, index);
  if (place && current !== null)
    return { id, signature: current, index, offset: 0, ...place, ...where };
  const { signature } = await openExact(home, canonicalCwd, id, slicer, where);
  const found = await findRecord(home, id, signature, index, slicer, archived);
  return { id, signature, index, offset: 0, ...found, ...where };
}

/** The next chunk from `position`; `next` is null after the last one. */
export function readChunk(
  home: string,
  position: RecordPosition,
): { chunk: RecordChunk; next: RecordPosition | null } {
  const opened = openPrimary(
    historyFolder(home, position.archived === true),
    primaryName(position.id),
  );
  if (!opened.ok) throw new ProtocolError("stale_revision");
  try {
    if (fileSignature(fstatSync(opened.fd, { bigint: true })) !== position.signature)
      throw new ProtocolError("stale_revision");
    const left = position.bytes - position.offset;
    // One byte more than fits: headBytes looks at it to end on a character boundary.
    const buffer = Buffer.allocUnsafe(Math.min(left, CHUNK_TEXT_BYTES + 1));
    const got = readSync(opened.fd, buffer, 0, buffer.length, position.start + position.offset);
    if (got !== buffer.length) throw new ProtocolError("stale_revision");
    const end = headBytes(buffer, CHUNK_TEXT_BYTES).length;
    const text = headJsonBytes(buffer.toString("utf8", 0, end), CHUNK_TEXT_BYTES);
    const offset = position.offset + utf8Length(text);
    const chunk = { index: position.index, bytes: position.bytes, offset: position.offset, text };
    return { chunk, next: offset < position.bytes ? { ...position, offset } : null };
  } finally {
    closeQuietly(opened.fd);
  }
}

function currentSignature(home: string, id: string, archived: boolean): string | null {
  const opened = openPrimary(historyFolder(home, archived), primaryName(id));
  if (!opened.ok) return null;
  try {
    return fileSignature(fstatSync(opened.fd, { bigint: true }));
  } finally {
    closeQuietly(opened.fd);
  }
}

/** Counts records up to `index` in the history validated under `signature`. */
async function findRecord(
  home: string,
  id: string,
  signature: string,
  index: number,
  slicer: Slicer,
  archived: boolean,
): Promise<RecordPlace> {
  const opened = openPrimary(historyFolder(home, archived), primaryName(id));
  if (!opened.ok) throw new ProtocolError("stale_revision");
  try {
    if (fileSignature(fstatSync(opened.fd, { bigint: true })) !== signature)
      throw new ProtocolError("stale_revision");
    const reader = new RecordReader(opened.fd, RECORD_BYTES);
    const allowance = { bytes: Number.POSITIVE_INFINITY };
    for (let at = 0; ; ) {
      await slicer.pause();
      const read = reader.next(allowance);
      if (read.kind === "paused") continue;
      if (read.kind === "end") throw new ProtocolError("invalid_params", NO_RECORD);
      if (read.kind !== "record") throw new ProtocolError("stale_revision");
      if (at < index) {
        at += 1;
        continue;
      }
      // Only the last line can be a torn tail (no record), and only parsing tells.
      if (!read.terminated) {
        const parsed = readRecordFacts(read.source, read.from, read.to, VALIDITY_ONLY);
        const facts = parsed instanceof Promise ? await parsed : parsed;
        if (isTornTail(read, facts)) throw new ProtocolError("invalid_params", NO_RECORD);
      }
      return trimmedPlace(read.source, read.from, read.to, read.start);
    }
  } finally {
    closeQuietly(opened.fd);
  }
}

/** The record's text without the JSON whitespace around it. */
function trimmedPlace(source: Buffer, from: number, to: number, start: number): RecordPlace {
  let head = from;
  let tail = to;
  while (head < tail && isJsonSpace(source[head])) head += 1;
  while (tail > head && isJsonSpace(source[tail - 1])) tail -= 1;
  return { start: start + (head - from), bytes: tail - head };
}

const isJsonSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;

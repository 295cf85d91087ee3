import { fstatSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { LIMITS } from "../../protocol/constants.js";
import { PageBuilder, utf8Length } from "../../protocol/paging.js";
import { RawJson } from "../../protocol/raw-json.js";
import type { SessionEvent, SessionHistoryResult } from "../../protocol/schemas/sessions.js";
import { fileSignature } from "../../store/inventory.js";
import { historyFolder, primaryName } from "../../store/layout.js";
import { closeQuietly, openPrimary } from "../../store/safe-open.js";
import { withPageBytesError } from "../page-bytes.js";
import type { RecordReadOptions } from "../records/facts.js";
import { RECORD_BYTES } from "../records/facts.js";
import { readRecordFacts } from "../records/read-facts.js";
import { RecordReader } from "../records/record-reader.js";
import { stubEvent } from "../records/record-stub.js";
import { isTornTail } from "../records/torn-tail.js";
import type { Slicer } from "../slicer.js";
import type { KnownRecords } from "./known-records.js";
import { openExact } from "./open.js";

/**
 * `session.history`: a validated history's events, page by page. The first page validates the
 * whole history exactly as `session.open` does; continuations reopen the file at a byte offset
 * and require its signature (identity, length, times) to be unchanged, else `stale_revision`.
 * Each event is sent as stored: the record's own text, spliced into the frame (RawJson), and a
 * page pays exactly that text's bytes. A record too large for any page comes as its stub
 * (record-stub.ts), whose place (`index`) `session.record` reads the record from.
 */
export interface HistoryPosition {
  id: string;
  offset: number;
  signature: string;
  /** The index of the record at `offset` (records counted from 0 in file order). */
  index: number;
  /** Read from `sessions/archive/` (an archived session). */
  archived?: boolean;
}

type StoredEventJson = RawJson<SessionEvent>;

interface HistoryPage {
  events: (StoredEventJson | SessionEvent)[];
  next: HistoryPosition | null;
}

const EMPTY_RESULT: SessionHistoryResult = { events: [], cursor: "x".repeat(64), complete: false };
const ENVELOPE_BYTES = utf8Length(JSON.stringify(EMPTY_RESULT));
/** The longest record text that fits an empty page (32,662 bytes): a longer one is a stub. */
const PAGE_EVENT_BYTES = LIMITS.page_bytes - ENVELOPE_BYTES;

/** A page keeps each record's text (or its stub) and its first user line. */
const PAGE_READ: RecordReadOptions = {
  keepEventBytes: PAGE_EVENT_BYTES,
  wantUserLine: true,
  keepValue: false,
};

export async function firstHistoryPage(
  home: string,
  canonicalCwd: string,
  id: string,
  slicer: Slicer,
  known?: KnownRecords,
  archived = false,
): Promise<HistoryPage> {
  const { signature } = await openExact(home, canonicalCwd, id, slicer, { archived });
  const position = { id, offset: 0, signature, index: 0, ...(archived ? { archived } : {}) };
  return historyPage(home, position, slicer, known);
}

/** `known` learns where each stubbed record is, so that `session.record` need not look again. */
export async function historyPage(
  home: string,
  position: HistoryPosition,
  slicer: Slicer,
  known?: KnownRecords,
): Promise<HistoryPage> {
  const opened = openPrimary(
    historyFolder(home, position.archived === true),
    primaryName(position.id),
  );
  if (!opened.ok) throw new ProtocolError("stale_revision");
  try {
    if (fileSignature(fstatSync(opened.fd, { bigint: true })) !== position.signature)
      throw new ProtocolError("stale_revision");
    return await readPage(
      new RecordReader(opened.fd, RECORD_BYTES, position.offset),
      position,
      slicer,
      known,
    );
  } finally {
    closeQuietly(opened.fd);
  }
}

async function readPage(
  reader: RecordReader,
  position: HistoryPosition,
  slicer: Slicer,
  known: KnownRecords | undefined,
): Promise<HistoryPage> {
  const page = new PageBuilder<StoredEventJson | SessionEvent>(ENVELOPE_BYTES, {
    entries: LIMITS.page_entries,
    bytes: LIMITS.page_bytes,
  });
  const allowance = { bytes: Number.POSITIVE_INFINITY };
  // The index of the next record: counted per record, never per read (a read may pause mid-record).
  let index = position.index - 1;
  for (;;) {
    await slicer.pause();
    const read = reader.next(allowance);
    if (read.kind === "paused") continue;
    if (read.kind === "end") return { events: page.items, next: null };
    // The history was validated under this very signature; anything else means it changed.
    if (read.kind !== "record") throw new ProtocolError("stale_revision");
    index += 1;
    const parsed = readRecordFacts(read.source, read.from, read.to, PAGE_READ);
    const facts = parsed instanceof Promise ? await parsed : parsed;
    // A torn tail is not an event: the history ends before it, as validation decided.
    if (isTornTail(read, facts)) return { events: page.items, next: null };
    if (!facts.valid) throw new ProtocolError("stale_revision");
    const next = { ...position, offset: read.start, index };
    if (page.full) return { events: page.items, next };
    let event: StoredEventJson | SessionEvent;
    if (facts.stub !== null) {
      // Too large for any page: its stub, and where the record's text is for session.record.
      event = stubEvent(facts.stub, index);
      const record = { start: read.start + facts.stub.lead, bytes: facts.stub.bytes };
      known?.learn(position.id, position.signature, index, record);
    } else if (facts.event !== null) {
      const { text, head, bytes } = facts.event;
      event = new RawJson(text, head, bytes);
    } else throw new ProtocolError("internal_error");
    if (!withPageBytesError(() => page.tryAdd(event))) return { events: page.items, next };
  }
}

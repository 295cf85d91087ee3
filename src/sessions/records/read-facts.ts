import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import type { RecordFacts, RecordReadOptions } from "./facts.js";
import { parseFacts } from "./parse-facts.js";
import { RecordParserPool } from "./parse-worker-pool.js";
import { SCAN_ENABLED, scanFacts } from "./scan-facts.js";

/**
 * The face of reading records (README.md): a record's bytes, `source[from, to)`, to its facts.
 * Every reader (listing, discovery, open, history pages, `session.record`, replay, the writer's
 * tail check) asks here, with one `RecordReadOptions` built once, so that a record's verdict
 * never depends on its size, its thread or which reader asks.
 *
 * The way depends on the record and on what is asked:
 * - the byte scanner (scan-facts.ts), when only a row's facts are asked (no page text, no
 *   parsed value) and it can vouch for the record: no JSON.parse, no garbage;
 * - else JSON.parse on this thread (parse-facts.ts), when the record is small enough to hold the
 *   loop for at most a few hundred microseconds;
 * - else the shared worker thread (parse-worker-pool.ts): JSON.parse of a 7 MiB record takes
 *   10-45 ms, far longer than the loop may be held. A worker's facts carry `value: null` (its
 *   value would come back as a structured clone, whose serialisation walks the value,
 *   recursively: a deep record could fail it), so a caller that needs the value parses that
 *   record itself (`parsedEvent`, below).
 */
const OFF_THREAD_BYTES = 256 * 1024;
/**
 * A record that opens more arrays and objects than this also goes to the worker, whatever its
 * size: JSON.parse pays about 100 ns a nesting level (a 256 KiB record nested 131,000 deep holds
 * the loop 11-17 ms), where flat text of the same size takes a fraction of a millisecond.
 */
const LOOP_OPENERS = 10_000;

const shared = new RecordParserPool(new URL("./parse-worker.js", import.meta.url));

/** The facts of the record `source[from, to)`: on this thread when it may, else from the worker. */
export function readRecordFacts(
  source: Buffer,
  from: number,
  to: number,
  options: RecordReadOptions,
): RecordFacts | Promise<RecordFacts> {
  const bytes = to - from;
  if (bytes <= LOOP_OPENERS) return factsOnThisThread(source, from, to, options);
  // The scanner's time is linear whatever the nesting (a 256 KiB record in well under a
  // millisecond): it needs no count of openings first, only a record it defers on does.
  if (bytes <= OFF_THREAD_BYTES && scannable(options)) {
    const scanned = scanFacts(source, from, to, options.wantUserLine);
    if (scanned !== null) return scanned;
  }
  if (bytes <= OFF_THREAD_BYTES && !opensMoreThan(source.subarray(from, to), LOOP_OPENERS))
    return parseFacts(source, from, to, options);
  return shared.parse(source.subarray(from, to), options);
}

/**
 * The facts of the record `source[from, to)` on the calling thread, whatever its size: the
 * scanner when it may answer, else the parse. What the loop does for a small record and the
 * worker for a large one.
 */
export function factsOnThisThread(
  source: Buffer,
  from: number,
  to: number,
  options: RecordReadOptions,
): RecordFacts {
  if (scannable(options)) {
    const scanned = scanFacts(source, from, to, options.wantUserLine);
    if (scanned !== null) return scanned;
  }
  return parseFacts(source, from, to, options);
}

/** The scanner answers only for a row's facts: no page text, no parsed value. */
function scannable(options: RecordReadOptions): boolean {
  return SCAN_ENABLED && options.keepEventBytes === 0 && !options.keepValue;
}

/**
 * The parsed value of the record `source[from, to)`, whose facts were found valid (so it is
 * UTF-8 and a `SessionEvent`): for a record whose facts came from the worker
 * without it.
 */
export function parsedEvent(source: Buffer, from: number, to: number): SessionEvent {
  return JSON.parse(source.toString("utf8", from, to)) as SessionEvent;
}

/** Whether the record has more than `limit` `[` and `{` bytes (in strings too: an upper bound). */
function opensMoreThan(record: Buffer, limit: number): boolean {
  let count = 0;
  for (const opener of OPENERS) {
    for (let at = record.indexOf(opener); at !== -1; at = record.indexOf(opener, at + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}

const OPENERS = [0x5b, 0x7b];

import { isUtf8 } from "node:buffer";
import { ProtocolError } from "../protocol/codes.js";
import type { SessionEvent } from "../protocol/schemas/sessions.js";
import { primaryName, sessionsDir } from "../store/layout.js";
import { RecordReader } from "../store/record-reader.js";
import { closeQuietly, errorCode, openPrimary } from "../store/safe-open.js";
import { isSessionEvent, TS_MAX_CHARS } from "./record-facts.js";
import { type Replay, ReplayWindow } from "./replay-window.js";
import { Slicer } from "./slicer.js";
import { isTornTail } from "./torn-tail.js";
import { ReplayRecord } from "./turn-records.js";
import { RECORD_BYTES } from "./validate.js";

/**
 * The records the turn engine builds its next context from (turns.md sections 5, 8 and 10):
 * the history read in constant memory beyond what is kept, keeping, in file order,
 * - the latest `compaction` record and every record after it (everything, without one), with
 *   the `user_message` of the compaction's own turn right after it (that input stays whole);
 * - of those, the turn records that match their schema (turn-records.ts), and the
 *   `user_message` / `assistant_message` records other tools write (no `turn_id`);
 * - nothing else: `session_meta`, `title`, `mode`, `model`, unknown types, and records of a
 *   turn type that do not match its schema are skipped;
 * - a torn tail ends the history (torn-tail.ts);
 * - at most `maxBytes` of kept records' lines: past that, the newest that fit, starting at a
 *   turn boundary, and `truncated` (replay-window.ts). More than any model's context window, so
 *   the engine compacts before its first call.
 * Errors: `session_missing`; `session_invalid` (unsafe, a bad line other than a torn tail, a
 * record over 8 MiB, unreadable).
 * It does not apply the cwd rule: the engine's admission revalidates the history (exact open).
 */
export const REPLAY_BYTES = 16 * 1024 * 1024;

export interface ReplayOptions {
  /** Bytes of kept records' lines (default REPLAY_BYTES). */
  maxBytes?: number;
  /** Aborts the read between slices (`operation_cancelled`). */
  signal?: AbortSignal;
}

export async function readReplay(
  home: string,
  id: string,
  options: ReplayOptions = {},
): Promise<Replay> {
  const opened = openPrimary(sessionsDir(home), primaryName(id));
  if (!opened.ok)
    throw new ProtocolError(opened.problem === "missing" ? "session_missing" : "session_invalid");
  try {
    return await collect(new RecordReader(opened.fd, RECORD_BYTES), options);
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (errorCode(error)?.startsWith("E")) throw new ProtocolError("session_invalid");
    throw error;
  } finally {
    closeQuietly(opened.fd);
  }
}

async function collect(reader: RecordReader, options: ReplayOptions): Promise<Replay> {
  const slicer = new Slicer(options.signal ?? new AbortController().signal);
  const allowance = { bytes: Number.POSITIVE_INFINITY };
  const window = new ReplayWindow(options.maxBytes ?? REPLAY_BYTES);
  /** The latest turn input: a compaction in its turn keeps it after the summary. */
  let input: { record: ReplayRecord; bytes: number } | null = null;
  for (;;) {
    await slicer.pause();
    const read = reader.next(allowance);
    if (read.kind === "paused") continue;
    if (read.kind === "end") return window.result();
    if (read.kind !== "record") throw new ProtocolError("session_invalid");
    const event = parseEvent(read.source, read.from, read.to);
    if (isTornTail(read, { valid: event !== null })) return window.result();
    if (event === null) throw new ProtocolError("session_invalid");
    const record = asReplayRecord(event);
    if (record === null) continue;
    const bytes = read.to - read.from;
    if (record.type === "user_message") input = { record, bytes };
    // Every later context is the latest summary and what follows it (turns.md section 10); the
    // turn that compacted keeps its input whole after the summary, as the engine did.
    if (record.type === "compaction") {
      const own = input?.record.turn_id !== undefined && input.record.turn_id === record.turn_id;
      window.restart(record, bytes, own && input ? input : undefined);
      continue;
    }
    window.add(record, bytes);
  }
}

/**
 * The record as a parser-valid event, or null: exactly the readers' validity (record-facts.ts:
 * UTF-8, JSON, a `SessionEvent`, `ts` of at most 64 characters), keeping the parsed value.
 */
function parseEvent(source: Buffer, from: number, to: number): SessionEvent | null {
  const bytes = source.subarray(from, to);
  if (!isUtf8(bytes)) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
  return isSessionEvent(value) && value.ts.length <= TS_MAX_CHARS ? value : null;
}

function asReplayRecord(event: SessionEvent): ReplayRecord | null {
  const parsed = ReplayRecord.safeParse(event);
  return parsed.success ? parsed.data : null;
}

import { close, constants, fstat, write as fsWrite, fsync, ftruncate, open } from "node:fs";
import { mkdir, unlink } from "node:fs/promises";
import { promisify } from "node:util";
import { ProtocolError } from "../../protocol/codes.js";
import { primaryName, sessionsDir } from "../../store/layout.js";
import type { LockTiming } from "../../store/lock-file.js";
import { closeQuietly, errorCode, inspectRoot, openPrimary } from "../../store/safe-open.js";
import { SessionLocked, WriterLock } from "../../store/writer-lock.js";
import { RECORD_BYTES } from "../records/facts.js";
import { TurnRecord, type TurnRecordBody } from "../records/turn-records.js";
import { findHistoryEnd, type HistoryEnd, TailOverLimit } from "./history-end.js";
import { HistoryWriteFailed, InvalidTurnRecord, RecordTooLarge } from "./history-write-errors.js";

/**
 * The one writer of a session history during a turn (turns.md section 8, docs/store.md):
 * holds the writer lock, appends each record as one line with one positional write at the
 * known end, fsyncs where asked, and on a failed or short write truncates back to the last
 * whole record, so nothing half-written stays. Appends are serialised (one at a time).
 */
export interface AcquireOptions {
  home: string;
  /** The canonical workspace, recorded as every record's `cwd`. */
  cwd: string;
  id: string;
  /** A lazy handle's first turn: create the history (exclusively) with its `session_meta`. */
  create: boolean;
  /** The positional write every append goes through (default `writeAtPosition`, fs.write). */
  write?: PositionalWrite;
  /** The writer lock's renewal and staleness (default the store's LOCK_TIMING, lock-file.ts). */
  lockTiming?: LockTiming;
}

/** One positional write of `data` at `position` of `fd`; resolves with the bytes written (maybe short). */
export type PositionalWrite = (fd: number, data: Buffer, position: number) => Promise<number>;

const writeAt = promisify(fsWrite);

/** One positional write(2): the count may be short (a full disk), and the writer checks it. */
const writeAtPosition: PositionalWrite = async (fd, data, position) =>
  (await writeAt(fd, data, 0, data.length, position)).bytesWritten;

const openFile = promisify(open);
const closeFile = promisify(close);
const fstatFile = promisify(fstat);
const fsyncFile = promisify(fsync);
const truncateFile = promisify(ftruncate);

const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_RDWR | constants.O_NOFOLLOW;

export class SessionWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private broken = false;
  /** Where the next record goes (after the last whole record). */
  private end: number;
  /** The file's length as this writer knows it (past `end` only while a torn tail waits). */
  private size: number;
  /** The last record has no LF: the next append writes it first. */
  private needsNewline: boolean;

  private constructor(
    readonly id: string,
    private readonly cwd: string,
    private readonly lock: WriterLock,
    private readonly fd: number,
    start: HistoryEnd & { size: number },
    private readonly write: PositionalWrite,
  ) {
    this.end = start.end;
    this.size = start.size;
    this.needsNewline = start.needsNewline;
  }

  /**
   * Takes the lock (`session_locked` when a live process holds it), then creates or opens the
   * history. Errors: `session_locked`; `session_missing` (no history to open);
   * `session_invalid` (unsafe sessions folder or history, a history to create that exists, a
   * last line over the record limit); `HistoryWriteFailed` for I/O failures. The lock is
   * released again on any failure.
   */
  static async acquire(options: AcquireOptions): Promise<SessionWriter> {
    const root = sessionsDir(options.home);
    if (options.create) await makeFolder(root);
    assertSafeRoot(root, options.create);
    const lock = await takeLock(root, options);
    try {
      return options.create
        ? await SessionWriter.create(root, options, lock)
        : await SessionWriter.reopen(root, options, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  private static async create(root: string, options: AcquireOptions, lock: WriterLock) {
    let fd: number;
    try {
      fd = await openFile(`${root}/${primaryName(options.id)}`, CREATE_FLAGS, 0o600);
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw new ProtocolError("session_invalid");
      throw new HistoryWriteFailed("io");
    }
    const empty = { end: 0, size: 0, needsNewline: false };
    const writer = new SessionWriter(
      options.id,
      options.cwd,
      lock,
      fd,
      empty,
      options.write ?? writeAtPosition,
    );
    try {
      await writer.enqueue(() =>
        writer.writeLine({ type: "session_meta", id: options.id }, "session_meta", null, true),
      );
      await syncFolder(root);
    } catch (error) {
      // Ours, and holding no whole record: removed, so that the next turn can create it again.
      closeQuietly(fd);
      await unlink(`${root}/${primaryName(options.id)}`).catch(() => {});
      throw error;
    }
    return writer;
  }

  private static async reopen(root: string, options: AcquireOptions, lock: WriterLock) {
    const opened = openPrimary(root, primaryName(options.id), undefined, true);
    if (!opened.ok)
      throw new ProtocolError(opened.problem === "missing" ? "session_missing" : "session_invalid");
    let tail: HistoryEnd;
    const size = Number(opened.stats.size);
    try {
      tail = await findHistoryEnd(opened.fd, size);
    } catch (error) {
      closeQuietly(opened.fd);
      if (error instanceof TailOverLimit) throw new ProtocolError("session_invalid");
      throw new HistoryWriteFailed("io");
    }
    const start = { ...tail, size };
    return new SessionWriter(
      options.id,
      options.cwd,
      lock,
      opened.fd,
      start,
      options.write ?? writeAtPosition,
    );
  }

  /**
   * Appends one record: `ts` (now), `cwd` and `turn_id` filled in, one line, one write. `sync`:
   * fsync before resolving (the engine syncs after `user_message` and `turn_end`). Throws
   * `RecordTooLarge` or `InvalidTurnRecord` before touching the file, `HistoryWriteFailed`
   * when the write failed (the history then ends where it ended before).
   */
  append(record: TurnRecordBody, turnId: string, options: { sync?: boolean } = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the session writer is closed"));
    return this.enqueue(() => this.writeLine(record, record.type, turnId, options.sync === true));
  }

  /**
   * Appends one record that belongs to no turn (session.rename's `title`): `ts` and `cwd` filled
   * in, fsynced. The same one-write, truncate-back rules as `append`.
   */
  appendUnturned(record: { type: string } & Record<string, unknown>): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the session writer is closed"));
    return this.enqueue(() => this.writeLine(record, record.type, null, true));
  }

  /** Stops renewal, closes the history and removes the lock if it is still ours. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => {});
    try {
      await closeFile(this.fd).catch(() => {});
    } finally {
      await this.lock.release();
    }
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  private async writeLine(
    body: Record<string, unknown>,
    type: string,
    turnId: string | null,
    sync: boolean,
  ): Promise<void> {
    const line = this.serialise(body, type, turnId);
    if (this.broken) throw new HistoryWriteFailed("unrecoverable");
    await this.assertUnchanged();
    if (this.size > this.end) await this.cutTornTail();
    const data = lineBytes(line, this.needsNewline);
    try {
      const written = await this.write(this.fd, data, this.end);
      if (written !== data.length) throw new Error("short write");
      if (sync) await fsyncFile(this.fd);
    } catch {
      await this.truncateBack();
      throw new HistoryWriteFailed("io");
    }
    this.end += data.length;
    this.size = this.end;
    this.needsNewline = false;
  }

  /**
   * The record's JSON (its line without the LF) and its UTF-8 length, checked against its schema
   * and the record bound.
   */
  private serialise(
    body: Record<string, unknown>,
    type: string,
    turnId: string | null,
  ): { json: string; bytes: number } {
    const { ts: _ts, cwd: _cwd, turn_id: _turn, type: _type, ...fields } = body;
    // An unturned record may bring its own `ts` (session.rename answers with it); a turn's never.
    const ts = turnId === null && typeof _ts === "string" ? _ts : new Date().toISOString();
    const record: Record<string, unknown> = { type, ts, cwd: this.cwd };
    if (turnId !== null) {
      record.turn_id = turnId;
      Object.assign(record, fields);
      if (!TurnRecord().safeParse(record).success) throw new InvalidTurnRecord(type);
    } else Object.assign(record, fields);
    const json = JSON.stringify(record);
    const bytes = Buffer.byteLength(json);
    if (bytes > RECORD_BYTES) throw new RecordTooLarge(bytes);
    return { json, bytes };
  }

  /** The lock still ours and the file still the length we left it: else nothing is written. */
  private async assertUnchanged(): Promise<void> {
    let size: number;
    try {
      size = (await fstatFile(this.fd)).size;
    } catch {
      throw new HistoryWriteFailed("io");
    }
    if (size !== this.size || !(await this.lock.owned())) throw new HistoryWriteFailed("changed");
  }

  private async cutTornTail(): Promise<void> {
    try {
      await truncateFile(this.fd, this.end);
    } catch {
      throw new HistoryWriteFailed("io");
    }
    this.size = this.end;
  }

  private async truncateBack(): Promise<void> {
    try {
      await truncateFile(this.fd, this.end);
      this.size = this.end;
    } catch {
      // The file's end is unknown now: refuse every later append rather than guess.
      this.broken = true;
    }
  }
}

/**
 * The bytes one append writes: the record's line and its LF, behind an LF that ends a last line
 * another writer left open. Encoded once into one buffer: a long reply's record is megabytes, and
 * each extra copy was time the event loop spent away from status and interrupt.
 */
function lineBytes(line: { json: string; bytes: number }, leadingNewline: boolean): Buffer {
  const lead = leadingNewline ? 1 : 0;
  const data = Buffer.allocUnsafe(lead + line.bytes + 1);
  if (lead) data[0] = 10;
  data.write(line.json, lead);
  data[lead + line.bytes] = 10;
  return data;
}

async function makeFolder(root: string): Promise<void> {
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
  } catch (error) {
    // EEXIST: a non-folder in the way, reported as unsafe by the check that follows.
    if (errorCode(error) !== "EEXIST" && errorCode(error) !== "ENOTDIR")
      throw new HistoryWriteFailed("io");
  }
}

/** The sessions folder must be a real folder; missing is fine only when there is nothing to open. */
function assertSafeRoot(root: string, create: boolean): void {
  let state: ReturnType<typeof inspectRoot>;
  try {
    state = inspectRoot(root);
  } catch {
    throw new ProtocolError("session_invalid");
  }
  if (state === "missing") throw new ProtocolError(create ? "session_invalid" : "session_missing");
}

async function takeLock(root: string, options: AcquireOptions): Promise<WriterLock> {
  try {
    return await WriterLock.acquire(root, options.id, options.lockTiming);
  } catch (error) {
    if (error instanceof SessionLocked) throw new ProtocolError("session_locked");
    throw new HistoryWriteFailed("io");
  }
}

/** Makes a new history's folder entry durable (best effort: the file itself is synced). */
async function syncFolder(root: string): Promise<void> {
  let fd: number | null = null;
  try {
    fd = await openFile(root, constants.O_RDONLY);
    await fsyncFile(fd);
  } catch {
  } finally {
    if (fd !== null) await closeFile(fd).catch(() => {});
  }
}

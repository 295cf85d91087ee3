import type { Hash } from "node:crypto";
import { readSync } from "node:fs";

/**
 * Splits a history into LF-terminated records with one 8 KiB read buffer, reading by position
 * (pread) so that its whole state is a handful of numbers plus the current partial record. It is
 * a resumable state machine: `next` returns at a record boundary, or mid-record when the
 * caller's byte allowance or read allowance runs out, and the following call carries on exactly
 * there. It never holds more than one record (bounded by `recordBytes`) and the buffer.
 */
export const READ_BUFFER_BYTES = 8192;

/**
 * The read buffer of a reader that reads one history whole and alone (an exact open, a turn's
 * admission): 8 KiB reads suit a listing, which reads many histories with one buffer, but cost
 * a 1 GB history 122,000 reads, the largest cost of its open after JSON.parse (issue 44,
 * "Opening a big history": 1.25 s of 6.4 s in the child's profile; 0.17 s in these, the bytes'
 * fingerprint 0.19 s dearer, colder in the cache after a larger read). 1 MiB measured the same;
 * one buffer a pass, released with the reader.
 */
export const WHOLE_READ_BUFFER_BYTES = 262_144;

export type ReadResult =
  /**
   * A complete record, without its LF: `source[from, to)`, valid only until the next call.
   * Handed out as a range of the reader's own buffer rather than a view of it: a view object
   * per record cost more than what most callers do with it (make a string of the range).
   */
  | {
      kind: "record";
      source: Buffer;
      from: number;
      to: number;
      start: number;
      /**
       * False for a final record without its LF: either a history whose last LF is omitted
       * (allowed) or an interrupted append (a torn tail, which the caller decides by parsing).
       */
      terminated: boolean;
    }
  /** End of file: no partial record is left. */
  | { kind: "end" }
  /** The current record would exceed `recordBytes`; the reader is finished. */
  | { kind: "over_limit" }
  /** The byte allowance is spent; call again with a fresh one. */
  | { kind: "out_of_bytes" }
  /** `maxReads` reads were done without completing a record; call again (lets callers yield). */
  | { kind: "paused" };

export interface ByteAllowance {
  /** Bytes this caller may still read from the file; decremented by the reader. */
  bytes: number;
}

const LF = 0x0a;

export class RecordReader {
  /** The unconsumed bytes are buffer[bufferStart, bufferEnd): the current record's start on. */
  private bufferStart = 0;
  private bufferEnd = 0;
  /** Where the search for the current record's LF resumes (bytes before it have none). */
  private scanFrom = 0;
  /** File position of the next read. */
  private position: number;
  /**
   * The current record's bytes that no longer fit the buffer (a record over 8 KiB), gathered in
   * one buffer that later large records of this reader reuse: grown by doubling up to the
   * record bound, never copied out per 8 KiB and joined again. It holds at most one record,
   * the bound the memory model already allows, and goes with the reader.
   */
  private spill: Buffer | null = null;
  private partBytes = 0;
  /** File position where the current record starts. */
  private recordStart: number;
  private finished = false;
  /** Total bytes read from the file. */
  bytesRead = 0;

  /**
   * `buffer` may be shared by readers used one after another (a scan reads one history at a
   * time), so a scan owns exactly one 8 KiB buffer whatever the number of histories.
   * `end`: the file's length as the caller knows it; reaching it counts as end of file without
   * one more read. Only for callers that then prove the length unchanged (discovery compares
   * the file's signature, length included, once the history is read).
   * `digest`: updated with every byte read, in file order (reads are sequential from `start`),
   * so that at end of file it covers [start, end of file) (history/admission-memo.ts).
   */
  constructor(
    private readonly fd: number,
    private readonly recordBytes: number,
    start = 0,
    private readonly buffer: Buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES),
    private readonly end = Number.POSITIVE_INFINITY,
    private readonly digest?: Pick<Hash, "update">,
  ) {
    this.position = start;
    this.recordStart = start;
  }

  /** Whether a record has been started but not completed (a suspension mid-record). */
  get midRecord(): boolean {
    return (
      this.partBytes > 0 || (this.bufferEnd > this.bufferStart && this.scanFrom === this.bufferEnd)
    );
  }

  next(allowance: ByteAllowance, maxReads = 64): ReadResult {
    let reads = 0;
    for (;;) {
      if (this.finished) return { kind: "end" };
      const found = this.takeFromBuffer();
      if (found) return found;
      if (allowance.bytes <= 0) return { kind: "out_of_bytes" };
      if (reads >= maxReads) return { kind: "paused" };
      if (this.position >= this.end) return this.atEndOfFile();
      reads += 1;
      this.makeRoom();
      const wanted = Math.min(this.buffer.length - this.bufferEnd, allowance.bytes);
      const got = readSync(this.fd, this.buffer, this.bufferEnd, wanted, this.position);
      if (got === 0) return this.atEndOfFile();
      this.digest?.update(this.buffer.subarray(this.bufferEnd, this.bufferEnd + got));
      this.position += got;
      this.bytesRead += got;
      allowance.bytes -= got;
      this.bufferEnd += got;
    }
  }

  /** A complete record or an over-limit verdict from the buffer; null when more bytes are needed. */
  private takeFromBuffer(): ReadResult | null {
    if (this.scanFrom >= this.bufferEnd) return null;
    // Bytes past bufferEnd are stale (a short read): an LF found there does not count.
    const found = this.buffer.indexOf(LF, this.scanFrom);
    const lf = found >= this.bufferEnd ? -1 : found;
    const end = lf === -1 ? this.bufferEnd : lf;
    if (this.partBytes + (end - this.bufferStart) > this.recordBytes) return this.overLimit();
    if (lf === -1) {
      this.scanFrom = this.bufferEnd;
      return null;
    }
    const from = this.bufferStart;
    this.bufferStart = this.scanFrom = lf + 1;
    return this.emit(from, lf, true);
  }

  /**
   * Frees the buffer's space for the next read without copying records out of it: the current
   * record's partial bytes move to the front (a record shorter than the buffer is then handed
   * out as a view of it, never assembled from copies); only a record that fills the whole
   * buffer is moved out, to the spill.
   */
  private makeRoom(): void {
    if (this.bufferStart === this.bufferEnd) {
      this.bufferStart = this.bufferEnd = this.scanFrom = 0;
      return;
    }
    if (this.bufferStart > 0) {
      this.buffer.copyWithin(0, this.bufferStart, this.bufferEnd);
      this.bufferEnd -= this.bufferStart;
      this.scanFrom -= this.bufferStart;
      this.bufferStart = 0;
    }
    if (this.bufferEnd === this.buffer.length) {
      // Copy: the buffer is reused by the next read.
      this.spillFrom(0, this.bufferEnd);
      this.bufferEnd = this.scanFrom = 0;
    }
  }

  /** Appends buffer[from, to) to the spilled part of the current record. */
  private spillFrom(from: number, to: number): void {
    const needed = this.partBytes + (to - from);
    if (this.spill === null || this.spill.length < needed) {
      const size = Math.max(needed, Math.min(2 * (this.spill?.length ?? 0), this.recordBytes + 1));
      const grown = Buffer.allocUnsafe(Math.max(size, 4 * this.buffer.length));
      this.spill?.copy(grown, 0, 0, this.partBytes);
      this.spill = grown;
    }
    this.buffer.copy(this.spill, this.partBytes, from, to);
    this.partBytes = needed;
  }

  /** The record ending with buffer[from, to) (after any bytes spilled earlier). */
  private emit(from: number, to: number, terminated: boolean): ReadResult {
    const start = this.recordStart;
    // The next record starts right after this record's LF (bufferStart now points past it).
    this.recordStart = this.position - (this.bufferEnd - this.bufferStart);
    if (this.partBytes === 0)
      return { kind: "record", source: this.buffer, from, to, start, terminated };
    this.spillFrom(from, to);
    const bytes = this.partBytes;
    this.partBytes = 0;
    return { kind: "record", source: this.spill as Buffer, from: 0, to: bytes, start, terminated };
  }

  private atEndOfFile(): ReadResult {
    this.finished = true;
    if (this.partBytes === 0 && this.bufferStart === this.bufferEnd) return { kind: "end" };
    // A final record without its trailing LF.
    const from = this.bufferStart;
    this.bufferStart = this.bufferEnd;
    return this.emit(from, this.bufferEnd, false);
  }

  private overLimit(): ReadResult {
    this.finished = true;
    this.spill = null;
    this.partBytes = 0;
    return { kind: "over_limit" };
  }
}

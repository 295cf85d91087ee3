import { readSync } from "node:fs";

/**
 * Splits a history into LF-terminated records with one 8 KiB read buffer, reading by position
 * (pread) so that its whole state is a handful of numbers plus the current partial record. It is
 * a resumable state machine: `next` returns at a record boundary, or mid-record when the
 * caller's byte allowance or read allowance runs out, and the following call carries on exactly
 * there. It never holds more than one record (bounded by `recordBytes`) and the buffer.
 */
export const READ_BUFFER_BYTES = 8192;

export type ReadResult =
  /** A complete record, without its LF. Valid only until the next call. */
  | { kind: "record"; bytes: Uint8Array; start: number }
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
  private bufferStart = 0;
  private bufferEnd = 0;
  /** File position of the next read. */
  private position: number;
  /** The current record's bytes so far, when it spans reads. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** File position where the current record starts. */
  private recordStart: number;
  private finished = false;
  /** Total bytes read from the file. */
  bytesRead = 0;

  /**
   * `buffer` may be shared by readers used one after another (a scan reads one history at a
   * time), so a scan owns exactly one 8 KiB buffer whatever the number of histories.
   */
  constructor(
    private readonly fd: number,
    private readonly recordBytes: number,
    start = 0,
    private readonly buffer: Buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES),
  ) {
    this.position = start;
    this.recordStart = start;
  }

  /** Whether a record has been started but not completed (a suspension mid-record). */
  get midRecord(): boolean {
    return this.partBytes > 0;
  }

  next(allowance: ByteAllowance, maxReads = 64): ReadResult {
    let reads = 0;
    for (;;) {
      if (this.finished) return { kind: "end" };
      const found = this.takeFromBuffer();
      if (found) return found;
      if (allowance.bytes <= 0) return { kind: "out_of_bytes" };
      if (reads >= maxReads) return { kind: "paused" };
      reads += 1;
      const wanted = Math.min(READ_BUFFER_BYTES, allowance.bytes);
      const got = readSync(this.fd, this.buffer, 0, wanted, this.position);
      if (got === 0) return this.atEndOfFile();
      this.position += got;
      this.bytesRead += got;
      allowance.bytes -= got;
      this.bufferStart = 0;
      this.bufferEnd = got;
    }
  }

  /** A complete record or an over-limit verdict from the buffer; null once the buffer is used up. */
  private takeFromBuffer(): ReadResult | null {
    if (this.bufferStart >= this.bufferEnd) return null;
    // Bytes past bufferEnd are stale (a short read): an LF found there does not count.
    const found = this.buffer.indexOf(LF, this.bufferStart);
    const lf = found >= this.bufferEnd ? -1 : found;
    const end = lf === -1 ? this.bufferEnd : lf;
    // A plain view: Buffer.subarray's species lookup cost more per record than the view itself.
    const piece = new Uint8Array(
      this.buffer.buffer,
      this.buffer.byteOffset + this.bufferStart,
      end - this.bufferStart,
    );
    if (this.partBytes + piece.length > this.recordBytes) return this.overLimit();
    if (lf === -1) {
      // Copy: the buffer is reused by the next read.
      this.parts.push(Buffer.from(piece));
      this.partBytes += piece.length;
      this.bufferStart = this.bufferEnd;
      return null;
    }
    this.bufferStart = lf + 1;
    return this.emit(piece);
  }

  private emit(lastPiece: Uint8Array): ReadResult {
    const start = this.recordStart;
    const bytes = this.parts.length === 0 ? lastPiece : Buffer.concat([...this.parts, lastPiece]);
    this.parts = [];
    this.partBytes = 0;
    // The next record starts right after this record's LF (bufferStart now points past it).
    this.recordStart = this.position - (this.bufferEnd - this.bufferStart);
    return { kind: "record", bytes, start };
  }

  private atEndOfFile(): ReadResult {
    this.finished = true;
    if (this.partBytes === 0) return { kind: "end" };
    // A final record without its trailing LF.
    const start = this.recordStart;
    const bytes = Buffer.concat(this.parts);
    this.parts = [];
    this.partBytes = 0;
    return { kind: "record", bytes, start };
  }

  private overLimit(): ReadResult {
    this.finished = true;
    this.parts = [];
    this.partBytes = 0;
    return { kind: "over_limit" };
  }
}

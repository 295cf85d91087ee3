/**
 * Splits an inbound byte stream into LF-terminated frames with a byte bound. A frame longer than
 * the bound is discarded up to its LF and reported once as `oversized`; the stream goes on.
 * Pure: bytes in, events out. A frame that lies whole inside one chunk is a view of that chunk
 * (no copy: at tens of thousands of small frames a second the copies were a large share of the
 * child's garbage), so a caller handles a chunk's frames before it reuses the chunk's memory;
 * every caller decodes them at once, and Node hands each `data` chunk over for good.
 */
export type FrameEvent = { kind: "frame"; bytes: Uint8Array } | { kind: "oversized" };

const LF = 0x0a;

export class FrameSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    this.each(chunk, (event) => events.push(event));
    return events;
  }

  /**
   * The chunk's events, handed to `visit` one by one as they are found, instead of gathered into
   * an array first: a 64 KiB chunk of small frames is over a thousand events, and held until the
   * last was handled they outlived the scavenges in between (docs/benchmarks.md, "The status
   * loop's garbage").
   */
  each(chunk: Uint8Array, visit: (event: FrameEvent) => void): void {
    let start = 0;
    while (start <= chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      if (lf !== -1 && this.size === 0 && !this.discarding && end - start <= this.maxBytes) {
        // The common case: nothing carried over, the whole frame in this chunk.
        // A plain view: Buffer's own subarray (its offset checks, a Buffer made) cost more.
        visit({
          kind: "frame",
          bytes: new Uint8Array(chunk.buffer, chunk.byteOffset + start, end - start),
        });
        start = lf + 1;
        continue;
      }
      this.take(chunk.subarray(start, end));
      if (lf === -1) break;
      visit(this.finish());
      start = lf + 1;
    }
  }

  /** At EOF a final unterminated line still counts as a frame. */
  end(): FrameEvent[] {
    if (this.size === 0 && !this.discarding) return [];
    return [this.finish()];
  }

  private take(piece: Uint8Array): void {
    if (piece.length === 0 || this.discarding) return;
    if (this.size + piece.length > this.maxBytes) {
      this.parts = [];
      this.size = 0;
      this.discarding = true;
      return;
    }
    // Copy: the caller may reuse its buffer.
    this.parts.push(piece.slice());
    this.size += piece.length;
  }

  private finish(): FrameEvent {
    if (this.discarding) {
      this.discarding = false;
      return { kind: "oversized" };
    }
    const bytes = concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    return { kind: "frame", bytes };
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * A stdio MCP server's stdout cut into lines, each line bounded (docs/mcp.md, "Bounds on what a
 * server sends"). The SDK's ReadBuffer concatenates its whole buffer at every chunk (a 10 MB
 * line in 64 KiB chunks copies gigabytes) and, past its 10 MiB bound, throws, which dropped the
 * server (issue 35: a 20 MB tool result restarted the server at every retry). Here the chunks of
 * a line are kept apart until its end, and a line past `LINE_BYTES` is not kept at all: only its
 * first and last bytes, enough to find whose answer it was (oversized-answer.ts), while the rest
 * streams past in bounded memory.
 */

/** The longest line kept whole: the SDK's own stdio bound (STDIO_DEFAULT_MAX_BUFFER_SIZE). */
const LINE_BYTES = 10 * 1024 * 1024;
/** What an oversized line keeps of its start and of its end. */
const EDGE_BYTES = 4096;

export type ReadLine =
  | { kind: "line"; text: string }
  | { kind: "oversized"; head: string; tail: string; bytes: number };

export class BoundedLineReader {
  private chunks: Buffer[] = [];
  private length = 0;
  /** Set while a line past the bound streams by: its head, its last bytes, its size. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  constructor(private readonly lineBytes = LINE_BYTES) {}

  /** Every line `chunk` completes, in order. */
  push(chunk: Buffer): ReadLine[] {
    const lines: ReadLine[] = [];
    let rest = chunk;
    for (;;) {
      const end = rest.indexOf(0x0a);
      if (end === -1) {
        this.take(rest);
        return lines;
      }
      this.take(rest.subarray(0, end));
      lines.push(this.finish());
      rest = rest.subarray(end + 1);
    }
  }

  /** Forgets a partial line (the stream closed). */
  clear(): void {
    this.chunks = [];
    this.length = 0;
    this.skipping = null;
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipping) return this.skip(part);
    if (this.length + part.length <= this.lineBytes) {
      this.chunks.push(part);
      this.length += part.length;
      return;
    }
    const kept = Buffer.concat(this.chunks);
    this.chunks = [];
    this.length = 0;
    this.skipping = { head: Buffer.alloc(0), tail: Buffer.alloc(0), bytes: 0 };
    this.skip(kept);
    this.skip(part);
  }

  private skip(part: Buffer): void {
    const skipping = this.skipping as NonNullable<typeof this.skipping>;
    if (skipping.head.length < EDGE_BYTES)
      skipping.head = Buffer.concat([
        skipping.head,
        part.subarray(0, EDGE_BYTES - skipping.head.length),
      ]);
    const tail = Buffer.concat([skipping.tail, part.subarray(-EDGE_BYTES)]);
    skipping.tail = Buffer.from(tail.subarray(-EDGE_BYTES));
    skipping.bytes += part.length;
  }

  private finish(): ReadLine {
    const skipping = this.skipping;
    if (skipping) {
      this.skipping = null;
      return {
        kind: "oversized",
        head: skipping.head.toString("utf8"),
        tail: skipping.tail.toString("utf8").replace(/\r$/, ""),
        bytes: skipping.bytes,
      };
    }
    const text = Buffer.concat(this.chunks, this.length).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.length = 0;
    return { kind: "line", text };
  }
}

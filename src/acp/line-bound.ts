/**
 * The longest line `mc-agent acp` reads: 32 MiB, the SDK's own default bound, counted with a
 * line's CR when it ends in CRLF. The SDK's reader ends the connection (and with it the agent,
 * silently) at a longer line; ours answers such a line like any other line that is no JSON
 * (`-32700`, docs/acp.md "Errors") and reads the next lines as usual.
 */
const ACP_LINE_BYTES = 32 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * The agent's input split into lines as the SDK's NDJSON reader splits it (at each LF, one CR
 * before it dropped), each line bounded: a line over `maxBytes` is reported once, as null, the
 * moment it passes the bound, and the rest of it, up to its LF, is dropped as it arrives.
 * Nothing of such a line is held: memory stays one line, however long the line sent.
 */
export class BoundedLines {
  /** The current line's bytes so far, when it has not passed the bound. */
  private parts: Uint8Array[] = [];
  private size = 0;
  /** The current line passed the bound: its bytes are dropped up to its LF. */
  private dropping = false;

  constructor(private readonly maxBytes = ACP_LINE_BYTES) {}

  /** Each line `chunk` ends (without its LF and a CR before it), or null for one over the bound. */
  *push(chunk: Uint8Array): Generator<Uint8Array | null> {
    let start = 0;
    while (start <= chunk.length) {
      const lf = chunk.indexOf(LF, start);
      const end = lf === -1 ? chunk.length : lf;
      const over = this.take(chunk.subarray(start, end));
      if (over) yield null;
      if (lf === -1) return;
      if (!this.dropping) yield this.line();
      this.parts = [];
      this.size = 0;
      this.dropping = false;
      start = lf + 1;
    }
  }

  /** The last line, when the input ended without its LF: undefined when there is none. */
  flush(): Uint8Array | undefined {
    const pending = this.size > 0 && !this.dropping ? this.line() : undefined;
    this.parts = [];
    this.size = 0;
    this.dropping = false;
    return pending;
  }

  /** Adds a piece of the current line; true when this piece takes it past the bound. */
  private take(piece: Uint8Array): boolean {
    if (this.dropping || piece.length === 0) return false;
    if (this.size + piece.length > this.maxBytes) {
      this.parts = [];
      this.size = 0;
      this.dropping = true;
      return true;
    }
    this.parts.push(piece);
    this.size += piece.length;
    return false;
  }

  private line(): Uint8Array {
    const whole =
      this.parts.length === 1 ? (this.parts[0] as Uint8Array) : Buffer.concat(this.parts);
    return whole[whole.length - 1] === CR ? whole.subarray(0, -1) : whole;
  }
}

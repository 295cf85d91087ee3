/**
 * How much a stdio server may send unasked (docs/mcp.md, "Bounds on what a server sends"):
 * every line that is not an answer to one of our requests (a line that is not JSON-RPC, a
 * notification such as `list_changed` or a log message, a request of its own, an oversized line
 * that answers nothing) is counted, in lines and in bytes, against two token buckets. A burst is
 * fine (a thousand `list_changed` at once, a chatty start); a server that keeps sending faster
 * than the refill (issue 35: non-JSON lines, or `list_changed` plus log notifications in a loop,
 * held the child at 50-110% of a core for as long as they ran) empties a bucket and is stopped
 * for good, `failed` with `flooding` in `mcp.status`. Answers are not counted: their number is
 * ours (one per request), and their size is bounded by the line bound.
 */

/** Unasked lines: a burst of this many, then this many a second. */
const FLOOD_BURST_LINES = 10_000;
const FLOOD_LINES_PER_SECOND = 1_000;
/** Unasked bytes: a burst of this many, then this many a second. */
const FLOOD_BURST_BYTES = 16 * 1024 * 1024;
const FLOOD_BYTES_PER_SECOND = 4 * 1024 * 1024;

class TokenBucket {
  private tokens: number;
  private at = performance.now();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  /** Takes `amount`; false once the bucket is empty (more was asked than it holds). */
  take(amount: number): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    this.tokens -= amount;
    return this.tokens >= 0;
  }
}

export class FloodGuard {
  private readonly lines = new TokenBucket(FLOOD_BURST_LINES, FLOOD_LINES_PER_SECOND);
  private readonly bytes = new TokenBucket(FLOOD_BURST_BYTES, FLOOD_BYTES_PER_SECOND);
  private tripped = false;

  /** Counts one unasked line of `size` bytes; true once the server sent too much (for good). */
  unasked(size: number): boolean {
    const linesOk = this.lines.take(1);
    const bytesOk = this.bytes.take(size + 1);
    if (!linesOk || !bytesOk) this.tripped = true;
    return this.tripped;
  }
}

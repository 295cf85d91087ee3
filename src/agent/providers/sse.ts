import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

/**
 * The server-sent events of a streamed answer, from its body's chunks: eventsource-parser does
 * the SSE grammar, this adds the bytes-to-text step and the one bound the contract asks of a
 * stream (`STREAM_LINE_BYTES`).
 *
 * The SDKs' own decoders are not used for this: both copy the unread rest of a network chunk once
 * per event (quadratic in the chunk), which was the largest single cost of a streaming turn
 * (docs/benchmarks.md). The SDKs still build, authenticate and send every request, and turn an
 * HTTP error status into their error classes; only the success body is read here.
 */

/**
 * The longest line a streaming answer may send (an SSE `data:` line is one event). Real events
 * are small; a server that sends a whole tool call at once stays far below the 8 MiB record bound.
 */
export const STREAM_LINE_BYTES = 8 * 1_048_576;

export type SseMessage = EventSourceMessage;

export class SseDecoder {
  private readonly text = new TextDecoder();
  private readonly parser: EventSourceParser;
  private ready: SseMessage[] = [];
  /** Bytes of the line still open at the end of the last chunk. */
  private openLine = 0;

  constructor() {
    this.parser = createParser({ onEvent: (message) => this.ready.push(message) });
  }

  /**
   * The events a chunk completes, in order; null when it breaks the line bound (the stream is
   * then malformed and nothing more should be fed).
   */
  feed(chunk: Uint8Array): SseMessage[] | null {
    if (!this.withinLineBound(chunk)) return null;
    this.parser.feed(this.text.decode(chunk, { stream: true }));
    const done = this.ready;
    this.ready = [];
    return done;
  }

  /** Every line that ends in `chunk`, and the one it leaves open, within the bound. */
  private withinLineBound(chunk: Uint8Array): boolean {
    let start = 0;
    let lf = chunk.indexOf(10);
    if (lf === -1) {
      this.openLine += chunk.length;
      return this.openLine <= STREAM_LINE_BYTES;
    }
    if (this.openLine + lf > STREAM_LINE_BYTES) return false;
    // Lines wholly inside the chunk are no longer than the chunk: only a chunk past the bound
    // (never seen from a socket, but possible) needs them measured one by one.
    if (chunk.length > STREAM_LINE_BYTES)
      for (
        start = lf + 1, lf = chunk.indexOf(10, start);
        lf !== -1;
        lf = chunk.indexOf(10, start)
      ) {
        if (lf - start > STREAM_LINE_BYTES) return false;
        start = lf + 1;
      }
    this.openLine = chunk.length - 1 - chunk.lastIndexOf(10);
    return this.openLine <= STREAM_LINE_BYTES;
  }
}

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

const LF = 10;
const CR = 13;

export class SseDecoder {
  private readonly text = new TextDecoder();
  private readonly parser: EventSourceParser;
  private ready: SseMessage[] = [];
  /** Bytes of the line still open at the end of the last chunk. */
  private openLine = 0;
  /** The text fed so far ends in CR: a line end the parser holds until it sees what follows. */
  private endsInCr = false;

  constructor() {
    this.parser = createParser({ onEvent: (message) => this.ready.push(message) });
  }

  /**
   * The events a chunk completes, in order; null when it breaks the line bound (the stream is
   * then malformed and nothing more should be fed).
   */
  feed(chunk: Uint8Array): SseMessage[] | null {
    if (!this.withinLineBound(chunk)) return null;
    this.parse(this.text.decode(chunk, { stream: true }));
    return this.take();
  }

  /**
   * The events the end of the stream completes. A CR is a whole line end, but the parser holds
   * a last CR back in case an LF follows (CRLF): at the end nothing follows, so it is a line end,
   * and a blank line there dispatches the event it ends (a CR-only stream's last event). What is
   * still open (an unfinished line or event) is dropped, as the SSE grammar says.
   */
  end(): SseMessage[] {
    this.parse(this.text.decode());
    // The LF makes the held CR a CRLF: one line end, nothing more.
    if (this.endsInCr) this.parse("\n");
    return this.take();
  }

  private parse(text: string): void {
    if (text === "") return;
    this.endsInCr = text.charCodeAt(text.length - 1) === CR;
    this.parser.feed(text);
  }

  private take(): SseMessage[] {
    const done = this.ready;
    this.ready = [];
    return done;
  }

  /**
   * Every line that ends in `chunk`, and the one it leaves open, within the bound. A line ends at
   * CR, LF or CRLF (the SSE grammar's three line ends); a CRLF's LF ends an empty line, which
   * measures the same.
   */
  private withinLineBound(chunk: Uint8Array): boolean {
    const first = lineEnd(chunk, 0);
    if (first === -1) {
      this.openLine += chunk.length;
      return this.openLine <= STREAM_LINE_BYTES;
    }
    if (this.openLine + first > STREAM_LINE_BYTES) return false;
    // Lines wholly inside the chunk are no longer than the chunk: only a chunk past the bound
    // (never seen from a socket, but possible) needs them measured one by one.
    if (chunk.length > STREAM_LINE_BYTES && !linesWithin(chunk, first + 1)) return false;
    this.openLine = chunk.length - 1 - Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR));
    return this.openLine <= STREAM_LINE_BYTES;
  }
}

/** The index of the first CR or LF at or after `from`, or -1. */
function lineEnd(chunk: Uint8Array, from: number): number {
  const lf = chunk.indexOf(LF, from);
  const cr = chunk.indexOf(CR, from);
  if (lf === -1) return cr;
  if (cr === -1) return lf;
  return Math.min(lf, cr);
}

/** Whether every line that both starts and ends in `chunk` from `start` is within the bound. */
function linesWithin(chunk: Uint8Array, start: number): boolean {
  let length = 0;
  for (let i = start; i < chunk.length; i++) {
    const byte = chunk[i];
    if (byte === LF || byte === CR) length = 0;
    else if (++length > STREAM_LINE_BYTES) return false;
  }
  return true;
}

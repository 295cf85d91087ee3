/**
 * The two bounds on a command's output: what streams to the client (`tool_stream_bytes` in
 * all, then nothing more) and what the model is shown (`tool_output_bytes` in all: the head and
 * the tail of the output with an omission line between, and a closing status line). Both keep
 * stdout and stderr interleaved in the order they arrived, and memory stays within the bounds.
 * Both count the output as the client and the model receive it: decoded, each invalid byte a
 * U+FFFD of three bytes (issue 35: raw `\xff` bytes, counted before decoding, reached the
 * model three times as long as its bound).
 */
import { utf8Length } from "../../protocol/raw-json.js";
import { headBytes, tailBytes } from "../../protocol/text-cut.js";

/** Room kept in the model's output for the omission line and the closing status line. */
const RESERVED_BYTES = 160;

/** How many bytes of the command's own output the model can be shown whole. */
export function modelOutputCapacity(toolOutputBytes: number): number {
  return Math.max(0, toolOutputBytes - RESERVED_BYTES);
}

export class HeadTailCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;
  /** The output went on where it could not be followed: how much was left out is unknown. */
  private gap = false;

  constructor(toolOutputBytes: number) {
    const capacity = modelOutputCapacity(toolOutputBytes);
    this.headLimit = Math.floor(capacity / 2);
    this.tailLimit = capacity - this.headLimit;
  }

  /** More output, as decoded text (never raw bytes: those are counted after decoding). */
  push(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.total += bytes.length;
    const toHead = Math.min(bytes.length, this.headLimit - this.headLength);
    if (toHead > 0) {
      this.head.push(bytes.subarray(0, toHead));
      this.headLength += toHead;
    }
    if (toHead === bytes.length) return;
    this.tail.push(bytes.subarray(toHead));
    this.tailLength += bytes.length - toHead;
    // Drop whole leading chunks while what is left still covers the tail.
    while (
      this.tail.length > 1 &&
      this.tailLength - (this.tail[0] as Buffer).length >= this.tailLimit
    )
      this.tailLength -= (this.tail.shift() as Buffer).length;
  }

  /**
   * The output's end is `bytes`, and what came between the pushed output and it is unknown (an
   * editor's terminal kept only the tail of a long output; host-shell.ts): the head stays.
   */
  endWith(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.gap = true;
    this.tail = [bytes];
    this.tailLength = bytes.length;
  }

  /** The output as the model sees it, `status` (e.g. "[exit code 0]") on the last line. */
  render(status: string): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (!this.gap && this.total <= this.headLimit + this.tailLimit)
      return join(Buffer.concat([head, tail]).toString("utf8"), status);
    const shownHead = headBytes(head, this.headLimit);
    const shownTail = tailBytes(tail, this.tailLimit);
    const omitted = this.gap
      ? "[... part of the output omitted ...]"
      : `[... ${this.total - shownHead.length - shownTail.length} bytes of output omitted ...]`;
    const headText = Buffer.from(shownHead).toString("utf8");
    const text = `${headText === "" ? "" : `${headText}\n`}${omitted}\n${Buffer.from(shownTail).toString("utf8")}`;
    return join(text, status);
  }
}

function join(output: string, status: string): string {
  if (output === "") return status;
  return output.endsWith("\n") ? `${output}${status}` : `${output}\n${status}`;
}

/** The client's share: text passes until `limit` bytes have streamed, then nothing. */
export class StreamBudget {
  private remaining: number;

  constructor(limit: number) {
    this.remaining = limit;
  }

  get spent(): boolean {
    return this.remaining <= 0;
  }

  /** The part of `text` still within the budget ("" once it is spent). */
  take(text: string): string {
    if (this.remaining <= 0) return "";
    const length = utf8Length(text);
    if (length <= this.remaining) {
      this.remaining -= length;
      return text;
    }
    const cut = Buffer.from(headBytes(Buffer.from(text, "utf8"), this.remaining)).toString("utf8");
    this.remaining = 0;
    return cut;
  }
}

import { jsonTextBytes, splitUtf8 } from "../protocol/text-cut.js";
import { RECORD_BYTES } from "../sessions/records/facts.js";
import { EVENT_TEXT_BYTES } from "./event-bounds.js";
import {
  type MessagePhase,
  type ModelProvider,
  type ModelRequest,
  ProviderFailure,
  type ProviderState,
  type StopReason,
  type Usage,
} from "./providers/provider.js";
import { TextBuilder } from "./text-builder.js";
import type { TurnEvents } from "./turn-events.js";

/** Retries of one call before any output (turns.md section 5). */
const MAX_RETRIES = 4;
/** A `Retry-After` longer than this is not waited for: the call fails `rate_limited` at once. */
const MAX_RETRY_AFTER_MS = 60_000;
/**
 * Backoff without `Retry-After`: the first retry at once (a blip costs the user nothing), then
 * 500 ms doubling (issue 38: a provider that is down showed nothing for 7.5 s of waits).
 */
const BACKOFF_MS = 500;
/**
 * One message item carries at most this much JSON-encoded text, so its `message_done` (the whole
 * text) stays well inside `frame_bytes`; a longer reply continues in a new item.
 */
const MESSAGE_ITEM_BYTES = 512 * 1024;

export interface ToolCallRequest {
  call_id: string;
  name: string;
  arguments: string;
}

/** One assistant message of a call: its own history record (and replayed as its own). */
export interface ReplyMessage {
  text: string;
  phase: MessagePhase | null;
  provider_state?: ProviderState;
}

type CallOutcome =
  | {
      kind: "done";
      text: string;
      /**
       * The reply's messages in order, the last one with the call's own `provider_state`
       * (`text` is them joined); one for a provider that streams one message per call.
       */
      messages: ReplyMessage[];
      /** The reply passed the record bound: its text was streamed but not kept (`text` is ""). */
      overflow: boolean;
      toolCalls: ToolCallRequest[];
      stop: StopReason;
      usage: Usage | null;
      provider_state?: ProviderState;
    }
  /**
   * Aborted (interrupt, shutdown, EOF); `text` is what was streamed before, `replied` whether
   * any of the reply (text, reasoning, a tool call) came before the abort.
   */
  | { kind: "interrupted"; text: string; replied: boolean }
  /** `replied` as for `interrupted`: a failure after output is not retried, and is a step. */
  | { kind: "failed"; failure: ProviderFailure; text: string; replied: boolean };

/**
 * A reply's text is kept up to this many JSON-encoded bytes: past it, no history record could
 * hold it (RECORD_BYTES), so it is streamed to the client and dropped, and memory stays bounded.
 */
const REPLY_TEXT_BYTES = RECORD_BYTES;

export interface CallOptions {
  provider: ModelProvider;
  request: Omit<ModelRequest, "signal">;
  signal: AbortSignal;
  events: TurnEvents;
  newItemId: () => string;
  /** Test builds shorten the backoff; production passes 1. */
  backoffScale?: number;
  /** A compaction's summary call: its text is not a reply, so no message events. */
  silent?: boolean;
}

/** One model call, streamed to the client, retried before any output as the contract says. */
export async function callModel(options: CallOptions): Promise<CallOutcome> {
  for (let attempt = 0; ; attempt++) {
    const stream = new StreamedReply(options);
    try {
      return await stream.run();
    } catch (error) {
      const text = await stream.finishKept();
      // Only this attempt can have output: an earlier one with output was not retried.
      const replied = stream.producedOutput;
      if (options.signal.aborted) return { kind: "interrupted", text, replied };
      const failure = asFailure(error);
      const delay = retryDelay(failure, attempt, options.backoffScale ?? 1);
      if (replied || delay === null) return { kind: "failed", failure, text, replied };
      await options.events.emit({
        type: "retry",
        attempt: attempt + 1,
        reason: failure.code as "rate_limited" | "remote_unavailable",
        delay_ms: delay,
      });
      if (!(await sleep(delay, options.signal)))
        return { kind: "interrupted", text: "", replied: false };
    }
  }
}

/** The delay before the next attempt, or null when this failure is not retried. */
function retryDelay(failure: ProviderFailure, attempt: number, scale: number): number | null {
  if (attempt >= MAX_RETRIES) return null;
  if (failure.code !== "rate_limited" && failure.code !== "remote_unavailable") return null;
  if (failure.retryAfterMs !== null) {
    return failure.retryAfterMs > MAX_RETRY_AFTER_MS ? null : Math.round(failure.retryAfterMs);
  }
  if (attempt === 0) return 0;
  return Math.round(BACKOFF_MS * 2 ** (attempt - 1) * scale);
}

function asFailure(error: unknown): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  return new ProviderFailure("invalid_response", "The model's answer could not be read.");
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** One attempt's stream: deltas to the client as they come, the whole reply at the end. */
class StreamedReply {
  producedOutput = false;
  private textBytes = 0;
  private overflow = false;
  private itemText = new TextBuilder();
  private itemBytes = 0;
  private itemId: string | null = null;
  private reasoningId: string | null = null;
  /**
   * The message streaming now: its phase, and its text so far (`keep`'s bound applies). The
   * reply's whole text is the ended messages' and this one's: kept once, not twice (a reply near
   * the record bound would otherwise hold it twice).
   */
  private phase: MessagePhase | null = null;
  private messageText = new TextBuilder();
  private readonly messages: ReplyMessage[] = [];
  /** Text received but not yet sent: it leaves as one `message_delta` (`flush`). */
  private pending = "";
  private pendingBytes = 0;
  private scheduled: NodeJS.Immediate | null = null;
  /** The last send; whatever is emitted next waits for it, so order and seq hold. */
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly options: CallOptions) {}

  async run(): Promise<CallOutcome> {
    const { provider, request, signal, events } = this.options;
    const toolCalls: ToolCallRequest[] = [];
    let usage: Usage | null = null;
    for await (const event of provider.stream({ ...request, signal })) {
      if (signal.aborted) break;
      switch (event.type) {
        case "message_start":
          await this.endMessage(this.phase);
          this.phase = event.phase;
          break;
        case "message_end":
          await this.endMessage(event.phase ?? this.phase, event.provider_state);
          break;
        case "text_delta":
          await this.addText(event.text);
          break;
        case "reasoning_delta":
          this.producedOutput = true;
          if (this.options.silent) break;
          this.reasoningId ??= this.options.newItemId();
          await this.flush();
          await events.delta("reasoning_delta", this.reasoningId, event.text);
          break;
        case "tool_call":
          this.producedOutput = true;
          toolCalls.push({ call_id: event.call_id, name: event.name, arguments: event.arguments });
          break;
        case "usage":
          usage = event.usage;
          break;
        case "done": {
          const text = await this.finish();
          this.messages.push({
            text: this.overflow ? "" : this.messageText.toString(),
            phase: this.phase,
            ...(event.provider_state ? { provider_state: event.provider_state } : {}),
          });
          return {
            kind: "done",
            text,
            messages: this.messages,
            overflow: this.overflow,
            toolCalls,
            stop: event.stop,
            usage,
            ...(event.provider_state ? { provider_state: event.provider_state } : {}),
          };
        }
      }
    }
    if (signal.aborted) throw new Error("aborted");
    throw new ProviderFailure("invalid_response", "The model's stream ended without a finish.");
  }

  /**
   * Closes the message streaming now: its item (`message_done` with its phase), and its record
   * when it has text or state. The next text starts a new item, whatever its size.
   */
  private async endMessage(phase: MessagePhase | null, state?: ProviderState): Promise<void> {
    this.phase = phase;
    await this.closeItem();
    const text = this.overflow ? "" : this.messageText.toString();
    if (text !== "" || state)
      this.messages.push({ text, phase, ...(state ? { provider_state: state } : {}) });
    this.messageText = new TextBuilder();
    this.phase = null;
  }

  /** Like `finish`, but a reply past the record bound keeps nothing (it cannot be recorded). */
  async finishKept(): Promise<string> {
    const text = await this.finish();
    return this.overflow ? "" : text;
  }

  /** Closes the open message item (its `message_done`) and returns the whole text. */
  async finish(): Promise<string> {
    await this.closeItem();
    return this.messages.map((m) => m.text).join("") + this.messageText.toString();
  }

  private async addText(text: string): Promise<void> {
    if (this.options.silent) {
      this.producedOutput ||= text.length > 0;
      this.keep(text, jsonTextBytes(text));
      return;
    }
    // A huge delta is taken in pieces so that one piece always fits an item.
    for (const piece of splitUtf8(text, 64 * 1024)) await this.addPiece(piece);
  }

  /**
   * Text pieces that arrive together (the deltas of what was already read, all handed over
   * before the event loop turns) leave as one `message_delta`: the send waits for the next
   * turn of the loop (`setImmediate`), or goes at once when the pending text reaches one
   * event's budget. Nothing waits for more input, so no text is held back by a slow remote;
   * the producer waits for a send under way, so a slow reader still back-pressures the stream.
   */
  private async addPiece(text: string): Promise<void> {
    this.producedOutput = true;
    const bytes = jsonTextBytes(text);
    if (this.itemId !== null && this.itemBytes + bytes > MESSAGE_ITEM_BYTES) await this.closeItem();
    this.itemId ??= this.options.newItemId();
    this.keep(text, bytes);
    this.itemText.add(text);
    this.itemBytes += bytes;
    this.pending += text;
    this.pendingBytes += bytes;
    if (this.pendingBytes >= EVENT_TEXT_BYTES) return this.flush();
    this.scheduled ??= setImmediate(() => {
      this.scheduled = null;
      // A failed send surfaces to whoever waits on `sending` next.
      this.flush().catch(() => {});
    });
    await this.sending;
  }

  /** Sends the pending text (after any send under way); resolves when all sends are done. */
  private flush(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.pending !== "" && this.itemId !== null) {
      const itemId = this.itemId;
      const text = this.pending;
      this.pending = "";
      this.pendingBytes = 0;
      this.sending = this.sending.then(() =>
        this.options.events.delta("message_delta", itemId, text),
      );
    }
    return this.sending;
  }

  /** Keeps the reply's text until it passes the record bound, then none of it. */
  private keep(text: string, bytes: number): void {
    if (this.overflow) return;
    this.textBytes += bytes;
    this.overflow = this.textBytes > REPLY_TEXT_BYTES;
    if (this.overflow) {
      this.messageText = new TextBuilder();
      for (const message of this.messages) message.text = "";
    } else this.messageText.add(text);
  }

  private async closeItem(): Promise<void> {
    await this.flush();
    if (this.itemId === null) return;
    const item_id = this.itemId;
    const text = this.itemText.toString();
    this.itemId = null;
    this.itemText = new TextBuilder();
    this.itemBytes = 0;
    await this.options.events.emit({ type: "message_done", item_id, text, phase: this.phase });
  }
}

/**
 * The one interface every wire format implements (one file per format beside this one). The turn
 * engine builds a provider-neutral context, a provider streams one model call from it, and the
 * engine owns everything around the call: retries, interrupt, events, records.
 */
import type { Credential } from "../../credentials/discovery.js";
import type { Provider } from "../../models/providers.js";

/** What every wire format is built from (index.ts picks the format by the provider's type). */
export interface ProviderOptions {
  provider: Provider;
  /** What credential discovery found; `keyless` for a custom provider without a key. */
  credential: Credential | null;
  bounds: TransportBounds;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where a provider reports what it could not do on the side (renewed tokens not saved). */
  log?: (level: "warn", message: string) => void;
}

/** One entry of the provider-neutral context, built from the session's records. */
export type ContextItem =
  | { kind: "user"; text: string; images?: ImagePart[] }
  | {
      kind: "assistant";
      text: string;
      /** The full model ID (`provider/model`) that wrote it. */
      model: string;
      /** Opaque replay state a provider attached (e.g. thinking signatures); only the provider
       * that wrote it (same `provider_state.provider`) may use it, others drop it. */
      provider_state?: ProviderState;
    }
  | { kind: "tool_call"; call_id: string; tool: string; input: unknown }
  | { kind: "tool_result"; call_id: string; output: string; is_error: boolean }
  /** A compaction summary: everything before it, summarised. */
  | { kind: "summary"; text: string };

/**
 * An image sent with a user message (docs/turns.md, "Attachments"), named by the SHA-256 of its
 * bytes; `data_base64` is null when the attachment store no longer has them.
 */
export interface ImagePart {
  media_type: string;
  sha256: string;
  bytes: number;
  data_base64: string | null;
  /** A replayed image not resent: past `replayed_images` newer ones (image-context.ts). */
  omitted?: true;
}

/** Bounded, JSON-serialisable replay state tagged with the provider type that made it. */
export interface ProviderState {
  provider: string;
  [key: string]: unknown;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the input object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  /** The provider's own model name (`demo-1` of `demo/demo-1`). */
  model: string;
  /** The selected effort, or null for a model without efforts. */
  effort: string | null;
  system: string;
  context: ContextItem[];
  /** Empty for a call that must not use tools (compaction). */
  tools: ToolSpec[];
  signal: AbortSignal;
  /** A stable id of the conversation (the session's), for providers that key a prompt cache
   * or a session header by it (Codex's `session_id`); absent, a provider uses its own. */
  conversation_id?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "refusal";

/** What an assistant message is for (OpenAI's Responses `phase`): an aside, or the answer. */
export type MessagePhase = "commentary" | "final_answer";

/** What a model call streams, in order; `done` is always last on success. */
export type StreamEvent =
  /**
   * A provider that streams several assistant messages in one call (Responses output items)
   * brackets each: the engine keeps each its own item and history record. Text outside them
   * (every other provider) is one message.
   */
  | { type: "message_start"; phase: MessagePhase | null }
  /** The message ends; `provider_state` is its replay state (reasoning before it, its phase). */
  | { type: "message_end"; phase: MessagePhase | null; provider_state?: ProviderState }
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  /** One whole tool call; `arguments` is the raw JSON text the model produced. */
  | { type: "tool_call"; call_id: string; name: string; arguments: string }
  | { type: "usage"; usage: Usage }
  | { type: "done"; stop: StopReason; provider_state?: ProviderState };

export type FailureCode =
  | "authentication_rejected"
  | "remote_unavailable"
  | "remote_timeout"
  | "rate_limited"
  | "context_exceeded"
  | "invalid_response"
  | "provider_error";

/**
 * A failed model call. The message is safe for the wire (no URL, key, body, path). The engine
 * retries `rate_limited` and `remote_unavailable` when nothing was streamed yet, honouring
 * `retryAfterMs`; `context_exceeded` triggers one reactive compaction.
 */
export class ProviderFailure extends Error {
  /**
   * The provider's own words about it, bounded and redacted (provider-text.ts); null when it
   * sent none. The turn result carries it as `provider_message`.
   */
  providerMessage: string | null = null;
  constructor(
    readonly code: FailureCode,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "ProviderFailure";
  }
}

export interface ModelProvider {
  /**
   * Streams one model call. Throws `ProviderFailure` (never anything carrying a URL or body);
   * an abort of `request.signal` ends the iteration promptly (any error then is ignored).
   * Pull-based: the engine awaits each event's delivery before asking for the next, so a slow
   * client back-pressures the HTTP stream.
   */
  stream(request: ModelRequest): AsyncIterable<StreamEvent>;
}

/** Transport bounds every provider enforces (10 s connect, 300 s without a byte). */
export interface TransportBounds {
  connectMs: number;
  idleMs: number;
}

export const DEFAULT_BOUNDS: TransportBounds = { connectMs: 10_000, idleMs: 300_000 };

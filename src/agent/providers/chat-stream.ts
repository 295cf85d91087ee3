import { z } from "zod";
import { TextBuilder } from "../text-builder.js";
import { REASONING_REPLAY_BYTES, type ReasoningField, reasoningState } from "./chat-reasoning.js";
import { failure } from "./failures.js";
import type { StopReason, StreamEvent, Usage } from "./provider.js";

/**
 * One Chat Completions stream, chunk by chunk, into provider events. Only what we use is checked,
 * loosely (servers add fields freely); a chunk that does not fit is `invalid_response`.
 */

/** All of one answer's tool-call arguments together, kept whole until the end (a record's bound). */
const TOOL_ARGUMENT_BYTES = 8 * 1_048_576;

const ToolCallDelta = z.looseObject({
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z
    .looseObject({ name: z.string().nullish(), arguments: z.string().nullish() })
    .nullish(),
});

/**
 * Mistral's reasoning format (Magistral, and its models with `reasoning_effort`): `content` is a
 * list of typed chunks, `{"type":"text","text"}` and `{"type":"thinking","thinking":[chunks]}`.
 * Chunk types we do not know are skipped, as unknown events are.
 */
const ThinkingPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ContentChunk = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.array(ThinkingPart).optional(),
});

const Choice = z.looseObject({
  index: z.number().int().nonnegative().optional(),
  delta: z
    .looseObject({
      content: z.union([z.string(), z.array(ContentChunk)]).nullish(),
      // Reasoning text as vLLM, DeepSeek and llama.cpp (`reasoning_content`) or Ollama and
      // OpenRouter (`reasoning`) stream it.
      reasoning_content: z.string().nullish(),
      reasoning: z.string().nullish(),
      tool_calls: z.array(ToolCallDelta).nullish(),
    })
    .nullish(),
  finish_reason: z.string().nullish(),
});

const Count = z.number().int().nonnegative().nullish();
const ChunkUsage = z.looseObject({
  prompt_tokens: Count,
  completion_tokens: Count,
  prompt_tokens_details: z.looseObject({ cached_tokens: Count }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: Count }).nullish(),
});

type Delta = NonNullable<z.infer<typeof Choice>["delta"]>;

const ChatChunk = z.looseObject({
  // Absent in some servers' usage-only chunk.
  choices: z.array(Choice).default([]),
  usage: ChunkUsage.nullish(),
});

const FINISH: Record<string, StopReason> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "refusal",
};

interface PendingCall {
  id: string | null;
  name: string;
  arguments: string;
}

export class ChatStreamAssembler {
  private readonly calls: PendingCall[] = [];
  private argumentBytes = 0;
  private finish: string | null = null;
  private usage: Usage | null = null;
  /**
   * The reasoning text and the field it came in: some servers need it back (chat-reasoning.ts).
   * Past REASONING_REPLAY_BYTES none of it is kept (it would go back empty anyway), so a long
   * stream's reasoning never piles up here: null from then on.
   */
  private reasoning: TextBuilder | null = new TextBuilder();
  private reasoningBytes = 0;
  private reasoningField: ReasoningField | null = null;

  /** `providerType` tags the replay state (`provider_state.provider`). */
  constructor(private readonly providerType = "openai-compatible") {}

  /** The events one chunk yields at once (text and reasoning; tool calls wait for the end). */
  accept(raw: unknown): StreamEvent[] {
    const parsed = ChatChunk.safeParse(raw);
    if (!parsed.success) throw failure("invalid_response");
    const chunk = parsed.data;
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    const events: StreamEvent[] = [];
    // We ask for one choice; a server that sends more is only read for the first.
    for (const choice of chunk.choices) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (delta?.reasoning_content)
        this.addReasoning("reasoning_content", delta.reasoning_content, events);
      else if (delta?.reasoning) this.addReasoning("reasoning", delta.reasoning, events);
      this.addContent(delta?.content, events);
      for (const fragment of delta?.tool_calls ?? []) this.addFragment(fragment);
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    return events;
  }

  /**
   * After the stream's end: the whole tool calls, the usage (zero when the server sent none),
   * then `done`. A stream that never said why it finished was cut or is not Chat Completions.
   */
  finishEvents(): StreamEvent[] {
    if (this.finish === null) throw failure("invalid_response");
    const events: StreamEvent[] = this.calls.map((call, index) => ({
      type: "tool_call",
      // A server that gives no ID (some local ones) gets a stable one: it is replayed as given.
      call_id: call.id ?? `call_${index}`,
      name: call.name,
      // A call without arguments (a tool without parameters) is an empty object.
      arguments: call.arguments === "" ? "{}" : call.arguments,
    }));
    events.push({ type: "usage", usage: this.usage ?? toUsage({}) });
    // Only a step with tool calls needs its reasoning back (DeepSeek's rule; chat-reasoning.ts).
    const state =
      this.calls.length > 0 && this.reasoningField
        ? reasoningState(this.providerType, this.reasoningField, this.reasoning?.toString() ?? "")
        : undefined;
    events.push({
      type: "done",
      stop: this.stopReason(),
      ...(state ? { provider_state: state } : {}),
    });
    return events;
  }

  private addReasoning(field: ReasoningField, text: string, events: StreamEvent[]): void {
    this.reasoningField ??= field;
    this.reasoningBytes += Buffer.byteLength(text);
    if (this.reasoningBytes > REASONING_REPLAY_BYTES) this.reasoning = null;
    else this.reasoning?.add(text);
    events.push({ type: "reasoning_delta", text });
  }

  /** Plain text, or Mistral's typed chunks: text as text, thinking as reasoning. */
  private addContent(content: Delta["content"], events: StreamEvent[]): void {
    if (!content) return;
    if (typeof content === "string") {
      events.push({ type: "text_delta", text: content });
      return;
    }
    for (const chunk of content) {
      if (chunk.type === "text" && chunk.text)
        events.push({ type: "text_delta", text: chunk.text });
      if (chunk.type === "thinking")
        for (const part of chunk.thinking ?? [])
          if (part.type === "text" && part.text)
            events.push({ type: "reasoning_delta", text: part.text });
    }
  }

  /** Tool calls with a plain `stop` (as some local servers finish them) are still tool use. */
  private stopReason(): StopReason {
    if (this.calls.length > 0 && (this.finish === "stop" || this.finish === "tool_calls"))
      return "tool_use";
    return FINISH[this.finish ?? ""] ?? (this.calls.length > 0 ? "tool_use" : "end_turn");
  }

  /**
   * Fragments join by `index`: the first brings the ID and name, later ones more arguments. A
   * fragment without an index (older Ollama sends each call whole) starts a new call when it has
   * an ID or a name, and otherwise continues the last one.
   */
  private addFragment(fragment: z.infer<typeof ToolCallDelta>): void {
    const name = fragment.function?.name ?? null;
    const index =
      fragment.index ??
      (fragment.id || name || this.calls.length === 0 ? this.calls.length : this.calls.length - 1);
    if (index > this.calls.length) throw failure("invalid_response");
    let call = this.calls[index];
    if (!call) {
      // A call needs a name; an empty one is the model's mistake, a tool error like an unknown
      // name (as on the other providers), not a broken stream.
      if (name === null) throw failure("invalid_response");
      call = { id: fragment.id ?? null, name, arguments: "" };
      this.calls.push(call);
    } else if (!call.id && fragment.id) {
      call.id = fragment.id;
    }
    const piece = fragment.function?.arguments ?? "";
    this.argumentBytes += Buffer.byteLength(piece);
    if (this.argumentBytes > TOOL_ARGUMENT_BYTES) throw failure("invalid_response");
    call.arguments += piece;
  }
}

function toUsage(usage: z.infer<typeof ChunkUsage>): Usage {
  return {
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    cached_input_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

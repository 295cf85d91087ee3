import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseInputMessageContentList,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { z } from "zod";
import { dataUrl, splitImages, textWithNotes } from "../attachments/image-parts.js";
import { REASONING_REPLAY_BYTES } from "./chat-reasoning.js";
import { failure, saying } from "./failures.js";
import type {
  ContextItem,
  MessagePhase,
  ModelRequest,
  ProviderFailure,
  ProviderState,
  StopReason,
  StreamEvent,
  Usage,
} from "./provider.js";

/**
 * The Responses wire format shared by `openai` and `codex`: the neutral context as input items,
 * and the event stream read back into our events. Only the fields we use are validated; any
 * event type we do not know is skipped (the API adds them freely).
 */

/** Who the request is for: replay state is only taken from the same provider and model. */
export interface ReplayOwner {
  type: string;
  id: string;
}

/**
 * One reasoning item kept for replay (store is false, so it travels with us): OpenAI's in its
 * encrypted form, an open-weight server's (DeepSeek, LM Studio, vLLM) as its plain
 * `reasoning_text` content, up to REASONING_REPLAY_BYTES of it. One with neither (a summary
 * alone) cannot be given back and is not kept.
 */
const ReasoningItem = z
  .object({
    type: z.literal("reasoning"),
    id: z.string(),
    encrypted_content: z.string().optional(),
    summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })),
    content: z
      .array(z.object({ type: z.literal("reasoning_text"), text: z.string() }))
      .min(1)
      .optional(),
  })
  .refine((item) => item.encrypted_content !== undefined || item.content !== undefined);
type ReasoningItem = z.infer<typeof ReasoningItem>;

/** A finished reasoning item as kept: nulls as absent, plain content over the bound dropped. */
function keptReasoning(item: Record<string, unknown>): ReasoningItem | null {
  const content = Array.isArray(item.content) && item.content.length > 0 ? item.content : null;
  const small =
    content !== null && Buffer.byteLength(JSON.stringify(content)) <= REASONING_REPLAY_BYTES;
  const parsed = ReasoningItem.safeParse({
    type: item.type,
    id: item.id,
    summary: item.summary ?? [],
    ...(typeof item.encrypted_content === "string"
      ? { encrypted_content: item.encrypted_content }
      : {}),
    ...(small ? { content } : {}),
  });
  return parsed.success ? parsed.data : null;
}

const ResponsesState = z.looseObject({
  reasoning: z.array(ReasoningItem).optional(),
  phase: z.enum(["commentary", "final_answer"]).optional(),
});

function usableState(
  item: Extract<ContextItem, { kind: "assistant" }>,
  owner: ReplayOwner,
  model: string,
): z.infer<typeof ResponsesState> | null {
  const state = item.provider_state;
  // Another provider's state (or another model's encrypted reasoning) is dropped: text stays.
  if (!state || state.provider !== owner.type || item.model !== `${owner.id}/${model}`) return null;
  const parsed = ResponsesState.safeParse(state);
  return parsed.success ? parsed.data : null;
}

/** A user message's content: its text, or its images (image-parts.ts) and then its text. */
function userInput(
  item: Extract<ContextItem, { kind: "user" }>,
): string | ResponseInputMessageContentList {
  if (!item.images?.length) return item.text;
  const { present, notes } = splitImages(item.images);
  const text = textWithNotes(item.text, notes);
  if (present.length === 0) return text;
  return [
    ...present.map((image): ResponseInputMessageContentList[number] => ({
      type: "input_image",
      image_url: dataUrl(image),
      detail: "auto",
    })),
    { type: "input_text", text },
  ];
}

function responsesInput(
  context: ContextItem[],
  owner: ReplayOwner,
  model: string,
): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const item of context) {
    switch (item.kind) {
      case "user":
        input.push({ type: "message", role: "user", content: userInput(item) });
        break;
      case "summary":
        input.push({ type: "message", role: "user", content: summaryText(item.text) });
        break;
      case "assistant": {
        const state = usableState(item, owner, model);
        for (const reasoning of state?.reasoning ?? []) input.push(reasoning);
        if (item.text)
          input.push({
            type: "message",
            role: "assistant",
            content: item.text,
            ...(state?.phase ? { phase: state.phase } : {}),
          });
        break;
      }
      case "tool_call":
        input.push({
          type: "function_call",
          call_id: item.call_id,
          name: item.tool,
          arguments: JSON.stringify(item.input ?? {}),
        });
        break;
      case "tool_result":
        input.push({ type: "function_call_output", call_id: item.call_id, output: item.output });
        break;
    }
  }
  return input;
}

/** A compaction summary goes to the model as user text that says what it is. */
export function summaryText(text: string): string {
  return `Summary of the conversation so far:\n\n${text}`;
}

/** The body fields both Responses providers send (each adds its own). */
export function responsesBody(
  request: ModelRequest,
  owner: ReplayOwner,
): ResponseCreateParamsStreaming {
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    instructions: request.system,
    input: responsesInput(request.context, owner, request.model),
    stream: true,
    store: false,
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
    body.tool_choice = "auto";
  }
  if (request.effort !== null) {
    body.reasoning = { effort: request.effort as "medium", summary: "auto" };
    // Unstored reasoning can only be replayed from its encrypted form.
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}

const TextDelta = z.looseObject({ delta: z.string() });
const ItemAdded = z.looseObject({
  item: z.looseObject({ type: z.string(), phase: z.string().nullable().optional() }),
});
const SummaryPart = z.looseObject({ summary_index: z.number() });
const ItemDone = z.looseObject({
  item: z.looseObject({
    type: z.string(),
    call_id: z.string().optional(),
    name: z.string().optional(),
    arguments: z.string().optional(),
    phase: z.string().nullable().optional(),
    content: z.array(z.looseObject({ type: z.string() })).optional(),
  }),
});
const Count = z.number().int().nonnegative();
const ResponseEnd = z.looseObject({
  response: z.looseObject({
    usage: z
      .looseObject({
        input_tokens: Count,
        output_tokens: Count,
        input_tokens_details: z.looseObject({ cached_tokens: Count.optional() }).nullish(),
        output_tokens_details: z.looseObject({ reasoning_tokens: Count.optional() }).nullish(),
      })
      .nullish(),
    incomplete_details: z.looseObject({ reason: z.string().optional() }).nullish(),
    error: z.looseObject({ code: z.string().nullish() }).nullish(),
  }),
});
const ErrorEvent = z.looseObject({
  code: z.string().nullish(),
  error: z.looseObject({ code: z.string().nullish(), type: z.string().nullish() }).nullish(),
});

/**
 * Reads one Responses stream: feed each event to `read`, which returns what to stream now;
 * `finished` says whether a terminal event came (EOF before one is `invalid_response`).
 */
export class ResponsesReader {
  finished = false;
  private sawToolCall = false;
  private refused = false;
  /** Reasoning items since the last message ended: they go back before what followed them. */
  private reasoning: ReasoningItem[] = [];

  constructor(private readonly providerType: string) {}

  read(event: ResponseStreamEvent): StreamEvent[] {
    switch (event.type) {
      case "response.output_text.delta":
        return [{ type: "text_delta", text: parse(TextDelta, event).delta }];
      case "response.refusal.delta":
        this.refused = true;
        return [{ type: "text_delta", text: parse(TextDelta, event).delta }];
      case "response.reasoning_summary_text.delta":
      // Raw reasoning, as open-weight models' servers stream it (LM Studio, DeepSeek, vLLM):
      // not in the SDK's event union, so matched by its name.
      case "response.reasoning_text.delta" as ResponseStreamEvent["type"]:
        return [{ type: "reasoning_delta", text: parse(TextDelta, event).delta }];
      case "response.output_item.added":
        return this.itemAdded(event);
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs: keep them apart in the reasoning text.
        return parse(SummaryPart, event).summary_index > 0
          ? [{ type: "reasoning_delta", text: "\n\n" }]
          : [];
      case "response.output_item.done":
        return this.itemDone(event);
      case "response.completed":
        return this.end(event, this.sawToolCall ? "tool_use" : "end_turn");
      case "response.incomplete": {
        const reason = parse(ResponseEnd, event).response.incomplete_details?.reason;
        return this.end(event, reason === "content_filter" ? "refusal" : "max_tokens");
      }
      case "response.failed": {
        const error = parse(ResponseEnd, event).response.error;
        throw saying(errorCodeFailure(error?.code ?? null), { error });
      }
      case "error": {
        const error = parse(ErrorEvent, event);
        throw saying(
          errorCodeFailure(error.code ?? error.error?.code ?? error.error?.type ?? null),
          event,
        );
      }
      default:
        return [];
    }
  }

  private itemDone(event: ResponseStreamEvent): StreamEvent[] {
    const { item } = parse(ItemDone, event);
    if (item.type === "function_call") {
      if (item.call_id === undefined || item.name === undefined || item.arguments === undefined)
        throw failure("invalid_response");
      this.sawToolCall = true;
      return [
        { type: "tool_call", call_id: item.call_id, name: item.name, arguments: item.arguments },
      ];
    }
    if (item.type === "reasoning") {
      const kept = keptReasoning(item);
      if (kept) this.reasoning.push(kept);
    }
    if (item.type === "message") {
      if (item.content?.some((c) => c.type === "refusal")) this.refused = true;
      // Each message is its own, with its phase, and goes back so (OpenAI: "preserve and resend
      // phase on all assistant messages"), after the reasoning that came before it.
      const phase = messagePhase(item.phase);
      const state = this.state(phase);
      this.reasoning = [];
      return [{ type: "message_end", phase, ...(state ? { provider_state: state } : {}) }];
    }
    return [];
  }

  private itemAdded(event: ResponseStreamEvent): StreamEvent[] {
    const { item } = parse(ItemAdded, event);
    return item.type === "message"
      ? [{ type: "message_start", phase: messagePhase(item.phase) }]
      : [];
  }

  private end(event: ResponseStreamEvent, stop: StopReason): StreamEvent[] {
    this.finished = true;
    const usage = parse(ResponseEnd, event).response.usage;
    const events: StreamEvent[] = [];
    if (usage) events.push({ type: "usage", usage: usageOf(usage) });
    const finalStop = this.refused && stop === "end_turn" ? "refusal" : stop;
    const state = this.state(null);
    events.push({ type: "done", stop: finalStop, ...(state ? { provider_state: state } : {}) });
    return events;
  }

  private state(phase: MessagePhase | null): ProviderState | undefined {
    if (this.reasoning.length === 0 && !phase) return undefined;
    return {
      provider: this.providerType,
      ...(this.reasoning.length > 0 ? { reasoning: this.reasoning } : {}),
      ...(phase ? { phase } : {}),
    };
  }
}

/** The phases the API documents; anything else is none. */
function messagePhase(phase: string | null | undefined): MessagePhase | null {
  return phase === "commentary" || phase === "final_answer" ? phase : null;
}

function usageOf(usage: NonNullable<z.infer<typeof ResponseEnd>["response"]["usage"]>): Usage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_input_tokens: usage.input_tokens_details?.cached_tokens ?? 0,
    reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** The Responses API's error codes (in `error` events, `response.failed` and 4xx bodies). */
export function errorCodeFailure(code: string | null): ProviderFailure {
  if (code === "context_length_exceeded") return failure("context_exceeded");
  if (code === "rate_limit_exceeded") return failure("rate_limited");
  if (code === "server_error" || code === "server_is_overloaded" || code === "slow_down")
    return failure("remote_unavailable");
  return failure("provider_error", code && SAFE_CODE.test(code) ? code : undefined);
}

/** A provider's error code is quoted only when it looks like one (never free text). */
const SAFE_CODE = /^[a-z][a-z0-9_.-]{0,63}$/;

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw failure("invalid_response");
  return parsed.data;
}

import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { z } from "zod";
import { splitImages, textWithNotes } from "../attachments/image-parts.js";
import type { ContextItem, ModelRequest } from "./provider.js";
import { type ReplayOwner, summaryText } from "./responses-format.js";

/**
 * The Messages wire format: the neutral context as alternating user/assistant messages, thinking
 * replayed from `provider_state`, and the per-model output and thinking budgets.
 */

export const ThinkingBlock = z.union([
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
]);
export type ThinkingBlock = z.infer<typeof ThinkingBlock>;
const AnthropicState = z.looseObject({ thinking: z.array(ThinkingBlock) });

/**
 * `max_tokens` by model family: each family's documented output ceiling (the API refuses more).
 * Anything else (a newer or custom name) gets 32,000, which every current Claude model accepts.
 */
const OUTPUT_CEILINGS: [RegExp, number][] = [
  [/claude-3-5|claude-3\.5/, 8_192],
  [/claude-3-7|claude-3\.7/, 64_000],
  [/claude-3-/, 4_096],
  [/claude-opus-4-(0|1)|claude-opus-4-2025|claude-opus-4$/, 32_000],
  [/claude-(sonnet|haiku)-4|claude-opus-4-[5-9]|claude-opus-[5-9]|claude-sonnet-[5-9]/, 64_000],
];
const DEFAULT_OUTPUT_TOKENS = 32_000;

export function maxOutputTokens(model: string): number {
  return OUTPUT_CEILINGS.find(([pattern]) => pattern.test(model))?.[1] ?? DEFAULT_OUTPUT_TOKENS;
}

/** Extended-thinking budgets per effort; an effort not listed thinks as `medium`. */
const THINKING_BUDGETS: Record<string, number> = {
  minimal: 1_024,
  low: 4_096,
  medium: 10_000,
  high: 24_000,
  xhigh: 32_000,
  max: 48_000,
};
/** What the answer itself keeps of `max_tokens` beside the thinking budget. */
const ANSWER_RESERVE_TOKENS = 4_096;
/** The API's smallest budget. */
const MIN_BUDGET = 1_024;

/** The budget for an effort, clamped so `max_tokens` stays above it with room to answer. */
export function thinkingBudget(effort: string, maxTokens: number): number {
  const wanted = THINKING_BUDGETS[effort] ?? (THINKING_BUDGETS.medium as number);
  return Math.max(MIN_BUDGET, Math.min(wanted, maxTokens - ANSWER_RESERVE_TOKENS));
}

export function messagesBody(
  request: ModelRequest,
  owner: ReplayOwner,
): MessageCreateParamsStreaming {
  const maxTokens = maxOutputTokens(request.model);
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages: anthropicMessages(request.context, owner, request.model),
    stream: true,
  };
  if (request.system) body.system = request.system;
  if (request.tools.length > 0)
    body.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as { type: "object" },
    }));
  if (request.effort !== null)
    body.thinking = { type: "enabled", budget_tokens: thinkingBudget(request.effort, maxTokens) };
  return body;
}

function anthropicMessages(
  context: ContextItem[],
  owner: ReplayOwner,
  model: string,
): MessageParam[] {
  const messages: MessageParam[] = [];
  // Consecutive items of one role share a message: an assistant's thinking, text and tool_use
  // blocks form one turn, and tool results go back together in one user message.
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const item of context) {
    switch (item.kind) {
      case "user":
        push("user", userBlocks(item));
        break;
      case "summary":
        push("user", textBlock(summaryText(item.text)));
        break;
      case "assistant":
        push("assistant", [...replayedThinking(item, owner, model), ...textBlock(item.text)]);
        break;
      case "tool_call":
        push("assistant", [
          { type: "tool_use", id: item.call_id, name: item.tool, input: inputObject(item.input) },
        ]);
        break;
      case "tool_result":
        push("user", [
          {
            type: "tool_result",
            tool_use_id: item.call_id,
            content: item.output,
            ...(item.is_error ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return messages;
}

/** A user message's blocks: its images (image-parts.ts), then its text. */
function userBlocks(item: Extract<ContextItem, { kind: "user" }>): ContentBlockParam[] {
  const { present, notes } = splitImages(item.images);
  return [
    ...present.map(
      (image): ContentBlockParam => ({
        type: "image",
        source: {
          type: "base64",
          media_type: image.media_type as "image/png",
          data: image.data_base64,
        },
      }),
    ),
    ...textBlock(textWithNotes(item.text, notes)),
  ];
}

/** The API refuses empty text blocks. */
function textBlock(text: string): ContentBlockParam[] {
  return text ? [{ type: "text", text }] : [];
}

function inputObject(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}

/** Thinking this provider wrote for this model, unchanged (its signature covers it). */
function replayedThinking(
  item: Extract<ContextItem, { kind: "assistant" }>,
  owner: ReplayOwner,
  model: string,
): ContentBlockParam[] {
  const state = item.provider_state;
  if (!state || state.provider !== owner.type || item.model !== `${owner.id}/${model}`) return [];
  const parsed = AnthropicState.safeParse(state);
  return parsed.success ? parsed.data.thinking : [];
}

import { z } from "zod";
import type { ContextItem, ProviderState } from "./provider.js";

/**
 * Reasoning a Chat Completions server needs back (docs/providers.md, "Reasoning replay").
 *
 * DeepSeek's thinking mode (on by default on V4) streams `reasoning_content`, and its guide says
 * that for a step that made tool calls the reasoning "must be passed back to the API in all
 * subsequent requests", or it answers 400; a step without tool calls needs none (it is ignored).
 * Other servers that stream `reasoning_content` (vLLM, SiliconFlow, Alibaba, xAI) or `reasoning`
 * (Groq, OpenRouter, Ollama) take it back in the field they stream it in or ignore it, but some
 * (Groq, Cerebras) refuse a field they do not know with a 400. So a step's reasoning is kept only
 * when it made tool calls, with the field it came in, and goes back only to the same provider and
 * model, in that field, on the assistant message that carries the calls.
 */

export type ReasoningField = "reasoning_content" | "reasoning";

/** Reasoning past this many UTF-8 bytes is not kept (a history record is bounded): it goes back empty. */
export const REASONING_REPLAY_BYTES = 1_048_576;

const ChatReasoningState = z.looseObject({
  provider: z.string(),
  reasoning_field: z.enum(["reasoning_content", "reasoning"]),
  reasoning: z.string(),
});

export function reasoningState(
  providerType: string,
  field: ReasoningField,
  text: string,
): ProviderState {
  const kept = Buffer.byteLength(text) <= REASONING_REPLAY_BYTES ? text : "";
  return { provider: providerType, reasoning_field: field, reasoning: kept };
}

/** Who the request is for (the provider's type and ID) and its model. */
export interface ChatReplayOwner {
  type: string;
  id: string;
  model: string;
}

type AssistantItem = Extract<ContextItem, { kind: "assistant" }>;

/** The state this provider and model wrote on `item`, else null (another's is dropped). */
function ownState(item: AssistantItem, owner: ChatReplayOwner) {
  const state = item.provider_state;
  if (!state || state.provider !== owner.type || item.model !== `${owner.id}/${owner.model}`)
    return null;
  const parsed = ChatReasoningState.safeParse(state);
  return parsed.success ? parsed.data : null;
}

/**
 * Whether the server wants `reasoning_content` on every assistant message with tool calls: it
 * streamed it on a tool step of this context, or the model is a DeepSeek one (a session that
 * switches to DeepSeek has tool calls another model made, and DeepSeek refuses them bare).
 */
export function wantsReasoningContent(context: ContextItem[], owner: ChatReplayOwner): boolean {
  if (/deepseek/i.test(owner.model)) return true;
  return context.some(
    (item) =>
      item.kind === "assistant" && ownState(item, owner)?.reasoning_field === "reasoning_content",
  );
}

/**
 * The reasoning fields of the assistant message that carries `item`'s tool calls: its own kept
 * reasoning, else (a message another model wrote, one recorded before the reasoning was kept,
 * or one past the bound) an empty `reasoning_content` when the server wants one (DeepSeek takes
 * an empty one as a step without reasoning), else nothing.
 */
export function replayedReasoning(
  item: AssistantItem | null,
  owner: ChatReplayOwner,
  fillEmpty: boolean,
): Partial<Record<ReasoningField, string>> {
  const state = item ? ownState(item, owner) : null;
  if (state) return { [state.reasoning_field]: state.reasoning };
  return fillEmpty ? { reasoning_content: "" } : {};
}

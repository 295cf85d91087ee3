import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import { dataUrl, splitImages, textWithNotes } from "../attachments/image-parts.js";
import {
  type ChatReplayOwner,
  replayedReasoning,
  wantsReasoningContent,
} from "./chat-reasoning.js";
import type { ContextItem, ToolSpec } from "./provider.js";

/** Frames a compaction summary for the model: it stands for the conversation before it. */
export const SUMMARY_PREFIX =
  "Summary of the conversation so far (earlier messages were compacted):";

/**
 * The provider-neutral context as Chat Completions messages:
 * - the system prompt first, as a `system` message;
 * - an assistant item, then the tool calls right after it, make one assistant message (content
 *   and `tool_calls`); tool calls with no assistant item before them get one with null content;
 * - a tool result is a `tool` message with its call's ID (Chat Completions has no error flag:
 *   the output's text says what failed);
 * - a summary is a `user` message: local chat templates often reject a `system` message anywhere
 *   but first, and a user turn is how other agents bridge a compaction.
 * - an assistant message with tool calls carries the step's reasoning back where the server needs
 *   it (chat-reasoning.ts); no other replay state exists here.
 */
export function toChatMessages(
  system: string,
  context: ContextItem[],
  owner: ChatReplayOwner | null = null,
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (system !== "") messages.push({ role: "system", content: system });
  const fillEmpty = owner !== null && wantsReasoningContent(context, owner);
  // The assistant message the next tool calls join, while nothing else came in between.
  let open: ChatCompletionAssistantMessageParam | null = null;
  let openItem: Extract<ContextItem, { kind: "assistant" }> | null = null;
  for (const item of context) {
    if (item.kind === "tool_call") {
      if (!open) {
        open = { role: "assistant", content: null };
        openItem = null;
        messages.push(open);
      }
      if (!open.tool_calls && owner)
        Object.assign(open, replayedReasoning(openItem, owner, fillEmpty));
      open.tool_calls ??= [];
      open.tool_calls.push({
        id: item.call_id,
        type: "function",
        function: { name: item.tool, arguments: JSON.stringify(item.input ?? {}) },
      });
      continue;
    }
    open = null;
    if (item.kind === "assistant") {
      open = { role: "assistant", content: item.text };
      openItem = item;
      messages.push(open);
    } else if (item.kind === "user") {
      messages.push({ role: "user", content: userContent(item) });
    } else if (item.kind === "tool_result") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
    } else {
      messages.push({ role: "user", content: `${SUMMARY_PREFIX}\n\n${item.text}` });
    }
  }
  for (const message of messages) {
    // An assistant message that only carries tool calls has null content, as real clients send.
    if (message.role === "assistant" && message.tool_calls && message.content === "")
      message.content = null;
  }
  return messages;
}

/** A user message's content: its text, or its images (image-parts.ts) and then its text. */
function userContent(
  item: Extract<ContextItem, { kind: "user" }>,
): string | ChatCompletionContentPart[] {
  if (!item.images?.length) return item.text;
  const { present, notes } = splitImages(item.images);
  const text = textWithNotes(item.text, notes);
  if (present.length === 0) return text;
  return [
    ...present.map(
      (image): ChatCompletionContentPart => ({
        type: "image_url",
        image_url: { url: dataUrl(image) },
      }),
    ),
    { type: "text", text },
  ];
}

export function toChatTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

import { anthropicEvents } from "../test/fixtures/anthropic-server.js";
import { answerEvents } from "../test/fixtures/chat-completions-server.js";
import { responsesEvents } from "../test/fixtures/responses-server.js";
import type { SseEvent } from "../test/fixtures/scripted-sse.js";
import type { PlannedStream } from "./turn-server.js";

/**
 * The three wire formats the child speaks, each as the tests' loopback servers stream it, and
 * how a provider of that format is configured: Chat Completions as a custom openai-compatible
 * provider, Responses and Anthropic Messages as the built-in `openai` and `anthropic` with their
 * `base_url` pointed at the loopback server (so their caches carry the built-ins' fingerprints
 * for that URL).
 */
export interface WireFormat {
  name: string;
  provider: string;
  type: "openai-compatible" | "openai" | "anthropic";
  /** The provider-local model ID. */
  model: string;
  /** The provider's base_url for a server at `url`. */
  baseUrl(url: string): string;
  /** The path the child requests under that base_url (the relay requests the same). */
  path: string;
  /** The key variable and a value for it. */
  keyEnv: Record<string, string>;
  /** The stream of one reply made of these text deltas. */
  stream(pieces: string[]): PlannedStream;
  /** The text delta one relayed `data:` payload carries ("" for the other events). */
  deltaText(data: unknown): string;
}

type Data = Record<string, unknown>;

const sse = (events: SseEvent[]) =>
  events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);

/** The first write ends with the first text delta. */
function split(frames: string[], firstDelta: number): PlannedStream {
  return { head: frames.slice(0, firstDelta + 1), rest: frames.slice(firstDelta + 1) };
}

export const CHAT_COMPLETIONS: WireFormat = {
  name: "Chat Completions",
  provider: "demo",
  type: "openai-compatible",
  model: "demo-1",
  baseUrl: (url) => `${url}/v1`,
  path: "/v1/chat/completions",
  keyEnv: { DEMO_KEY: "sk-bench" },
  // Line 0 is the role-only chunk, line 1 the first content.
  stream: (pieces) => split(answerEvents({ text: pieces }, "demo-1"), 1),
  deltaText: (data) => {
    const choice = ((data as Data).choices as Data[] | undefined)?.[0];
    return ((choice?.delta as Data | undefined)?.content as string | undefined) ?? "";
  },
};

export const RESPONSES: WireFormat = {
  name: "Responses",
  provider: "openai",
  type: "openai",
  model: "gpt-bench",
  baseUrl: (url) => `${url}/v1`,
  path: "/v1/responses",
  keyEnv: { OPENAI_API_KEY: "sk-bench" },
  stream: (pieces) => {
    const events = responsesEvents({ text: pieces });
    return split(
      sse(events),
      events.findIndex((e) => e.event === "response.output_text.delta"),
    );
  },
  deltaText: (data) =>
    (data as Data).type === "response.output_text.delta" ? ((data as Data).delta as string) : "",
};

export const ANTHROPIC_MESSAGES: WireFormat = {
  name: "Anthropic Messages",
  provider: "anthropic",
  type: "anthropic",
  model: "claude-bench",
  baseUrl: (url) => url,
  path: "/v1/messages",
  keyEnv: { ANTHROPIC_API_KEY: "sk-ant-bench" },
  stream: (pieces) => {
    const events = anthropicEvents({ text: pieces });
    return split(
      sse(events),
      events.findIndex((e) => e.event === "content_block_delta"),
    );
  },
  deltaText: (data) => {
    const delta = (data as Data).delta as Data | undefined;
    return delta?.type === "text_delta" ? (delta.text as string) : "";
  },
};

export const WIRE_FORMATS = [CHAT_COMPLETIONS, RESPONSES, ANTHROPIC_MESSAGES];

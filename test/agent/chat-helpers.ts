import assert from "node:assert/strict";
import { ChatCompletionsProvider } from "../../src/agent/providers/chat-completions.js";
import {
  type ModelRequest,
  ProviderFailure,
  type StreamEvent,
  type TransportBounds,
} from "../../src/agent/providers/provider.js";
import type { ChatServer } from "../fixtures/chat-completions-server.js";
import { within } from "../helpers/fakes.js";

export const KEY = "sk-chat-secret-456";

export function chatProvider(
  baseUrl: string,
  apiKey: string | null = KEY,
  bounds: TransportBounds = { connectMs: 10_000, idleMs: 30_000 },
): ChatCompletionsProvider {
  return new ChatCompletionsProvider({ baseUrl, apiKey, bounds });
}

export function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "demo-1",
    effort: null,
    system: "You are a test.",
    context: [{ kind: "user", text: "Hi" }],
    tools: [],
    signal: new AbortController().signal,
    ...extra,
  };
}

export interface Outcome {
  events: StreamEvent[];
  failure: ProviderFailure | null;
}

/** Drains one model call (bounded), keeping its events and the failure it ended with. */
export async function drain(
  provider: { stream(r: ModelRequest): AsyncIterable<StreamEvent> },
  req: ModelRequest = request(),
  ms = 20_000,
): Promise<Outcome> {
  const events: StreamEvent[] = [];
  const run = async (): Promise<Outcome> => {
    try {
      for await (const event of provider.stream(req)) events.push(event);
      return { events, failure: null };
    } catch (error) {
      if (error instanceof ProviderFailure) return { events, failure: error };
      throw error;
    }
  };
  return within(run(), ms, "the model call");
}

export function joinedText(events: StreamEvent[]): string {
  return events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
}

/** Fails the call with `code`, its message free of URL, key, host and body. */
export function assertFailure(
  outcome: Outcome,
  code: string,
  server: ChatServer | null,
  what = code,
): ProviderFailure {
  assert.ok(outcome.failure, `${what}: expected a failure, got ${JSON.stringify(outcome.events)}`);
  assert.equal(outcome.failure.code, code, what);
  const message = outcome.failure.message;
  for (const secret of [KEY, "127.0.0.1", "http", "scripted", "/v1", "chat/completions"])
    assert.ok(!message.includes(secret), `${what}: the message names ${secret}`);
  if (server) assert.equal(server.unscripted, 0, `${what}: an unscripted call`);
  return outcome.failure;
}

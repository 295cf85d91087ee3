import assert from "node:assert/strict";
import { ChatCompletionsProvider } from "../../src/agent/providers/chat-completions.js";
import type {
  ModelRequest,
  ProviderFailure,
  StreamEvent,
  TransportBounds,
} from "../../src/agent/providers/provider.js";
import type { ChatServer } from "../fixtures/chat-completions-server.js";
import { type Drained, drain as drainStream, textOf } from "./provider-helpers.js";

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

export type Outcome = Drained;

/** Drains one model call (bounded), keeping its events and the failure it ended with. */
export function drain(
  provider: { stream(r: ModelRequest): AsyncIterable<StreamEvent> },
  req: ModelRequest = request(),
  ms = 20_000,
): Promise<Outcome> {
  return drainStream(provider.stream(req), ms);
}

/** The text deltas joined. */
export const joinedText = textOf;

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

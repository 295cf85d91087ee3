import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProviderOptions } from "../../src/agent/providers/provider.js";
import {
  type ContextItem,
  type ModelRequest,
  ProviderFailure,
  type StreamEvent,
  type TransportBounds,
} from "../../src/agent/providers/provider.js";
import type { Credential } from "../../src/credentials/discovery.js";
import type { Provider } from "../../src/models/providers.js";

/** Generous: the machine is shared, and no test asserts a tight timing. */
export const TEST_BOUNDS: TransportBounds = { connectMs: 10_000, idleMs: 20_000 };

export function providerAt(type: Provider["type"], baseUrl: string, id: string = type): Provider {
  return {
    id,
    type,
    base_url: baseUrl,
    api_key_env: null,
    token_url: null,
    fingerprint: "test",
  };
}

export function options(
  provider: Provider,
  credential: Credential | null,
  extra: Partial<ProviderOptions> = {},
): ProviderOptions {
  const home = mkdtempSync(join(tmpdir(), "mc-providers-"));
  return { provider, credential, bounds: TEST_BOUNDS, home, env: {}, ...extra };
}

export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "gpt-test",
    effort: null,
    system: "You are a test assistant.",
    context: [{ kind: "user", text: "Hello" }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export const READ_TOOL = {
  name: "read_file",
  description: "Reads a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

export interface Drained {
  events: StreamEvent[];
  failure: ProviderFailure | null;
}

/** Every event of one call, or the failure it ended with; under a timeout. */
export async function drain(stream: AsyncIterable<StreamEvent>, ms = 60_000): Promise<Drained> {
  const events: StreamEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const run = (async () => {
    try {
      for await (const event of stream) events.push(event);
      return null;
    } catch (error) {
      if (error instanceof ProviderFailure) return error;
      throw error;
    }
  })();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timed out draining the stream")), ms);
  });
  try {
    return { events, failure: await Promise.race([run, timeout]) };
  } finally {
    clearTimeout(timer);
  }
}

export function textOf(
  events: StreamEvent[],
  type: "text_delta" | "reasoning_delta" = "text_delta",
) {
  return events
    .filter((e): e is Extract<StreamEvent, { type: typeof type }> => e.type === type)
    .map((e) => e.text)
    .join("");
}

export function doneOf(events: StreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error(`the stream did not end with done: ${last?.type}`);
  return last;
}

/** The context after one tool round: the call the model made and its result. */
export function toolRound(
  model: string,
  state?: ContextItem & { kind: "assistant" },
): ContextItem[] {
  return [
    { kind: "user", text: "Read a.txt" },
    ...(state ? [state] : [{ kind: "assistant" as const, text: "", model }]),
    { kind: "tool_call", call_id: "call_1", tool: "read_file", input: { path: "a.txt" } },
    { kind: "tool_result", call_id: "call_1", output: "contents of a", is_error: false },
  ];
}

/** No header but the named one carries the secret, and no body does. */
export function secretOnlyIn(
  seen: { headers: Record<string, string | string[] | undefined>; body: string; url: string },
  secret: string,
  header: string,
): string[] {
  const leaks: string[] = [];
  for (const [name, value] of Object.entries(seen.headers))
    if (name !== header && String(value).includes(secret)) leaks.push(`header ${name}`);
  if (seen.body.includes(secret)) leaks.push("body");
  if (seen.url.includes(secret)) leaks.push("url");
  return leaks;
}

/** Runs `work` with `variables` set in this process's environment, restoring it after. */
export async function withEnvironment<T>(
  variables: Record<string, string>,
  work: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, variables);
  try {
    return await work();
  } finally {
    for (const name of Object.keys(variables))
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  }
}

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { Agent } from "undici";
import { loadUndici, type Undici } from "../../http/undici.js";
import type { TransportBounds } from "./provider.js";
import { SseDecoder, type SseMessage } from "./sse.js";

/**
 * The HTTP under every provider, whichever SDK speaks its wire format: undici's fetch through one
 * pool per connect bound, an idle bound over the remote's bytes, bounded lines and error bodies.
 * The SDKs' own retries and timeouts are off: the turn engine retries, and these bounds are the
 * contract's.
 */

/** An error answer's body is read at most this far (it only refines the status). */
const ERROR_BODY_BYTES = 65_536;
/**
 * The longest stretch a stream is processed without giving the event loop a turn. A body read
 * ahead is parsed and sent on entirely in promise callbacks, which never let the loop read
 * stdin: without this a status or an interrupt waited for the whole buffer (300 ms and more at
 * full speed, docs/benchmarks.md).
 */
const SLICE_MS = 4;
/** Far beyond any call: the SDKs take a number, and the idle bound is the real clock. */
const SDK_TIMEOUT_MS = 2_147_483_647;

type OpenAiModule = typeof import("openai");
type AnthropicModule = typeof import("@anthropic-ai/sdk");
let openAi: Promise<OpenAiModule> | null = null;
let anthropic: Promise<AnthropicModule> | null = null;
/** They load on the first model call, not at child start: listings never need them. */
export function loadOpenAi(): Promise<OpenAiModule> {
  openAi ??= import("openai");
  return openAi;
}
export function loadAnthropic(): Promise<AnthropicModule> {
  anthropic ??= import("@anthropic-ai/sdk");
  return anthropic;
}

/** One pool per connect bound (undici fixes the connect timeout per agent). */
const agents = new Map<number, Agent>();
function agentFor(connectMs: number, { Agent }: Undici): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    // The idle bound is ours; undici's own header and body timers would cut in at 300 s
    // regardless of activity on a long stream, so they are off.
    agent = new Agent({ connect: { timeout: connectMs }, headersTimeout: 0, bodyTimeout: 0 });
    agents.set(connectMs, agent);
  }
  return agent;
}

/**
 * How the transport under one call failed, when it was the transport: no byte within the idle
 * bound, no connection within the connect bound, a refused, reset or cut connection, or a line
 * past the stream line bound (`SseDecoder`).
 */
type TransportFault = "timeout" | "connect_timeout" | "network" | "malformed";

/**
 * One model call's transport: the signal its SDK request runs under (aborted by the caller, by
 * the idle bound, or when the call ends), the idle clock, the fetch the SDK is given, and what
 * went wrong underneath, if anything.
 *
 * The idle clock runs only while the call waits on the remote (`events` arms it around each
 * read of the body), and every byte received meanwhile restarts it. While the consumer holds an
 * event the clock is stopped, so a slow client back-pressuring the stream is never taken for a
 * silent remote, even when the body reads ahead.
 */
export class CallGuard {
  fault: TransportFault | null = null;
  /** An error answer's body, up to `ERROR_BODY_BYTES` (it refines the status). */
  errorBody = "";
  /**
   * The credentials this call sends (set by the client builders below): a failure's
   * `providerMessage` never repeats one (failures.ts, `thrownFailure`).
   */
  readonly secrets: string[] = [];
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private readonly onAbort = () => this.controller.abort();

  constructor(
    private readonly bounds: TransportBounds,
    private readonly caller: AbortSignal,
  ) {
    if (caller.aborted) this.controller.abort();
    else caller.addEventListener("abort", this.onAbort, { once: true });
  }

  /** What the SDK request runs under. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The caller aborted: the call ends quietly, whatever the SDK made of it. */
  get cancelled(): boolean {
    return this.caller.aborted;
  }

  /**
   * The server-sent events of the successful answer `start` resolves to (the SDK's raw response,
   * after it turned an error status into its error), with the idle clock running from the
   * request until each chunk arrives. A line past the bound is a malformed stream; a body the
   * transport ended (a reset, the idle bound) throws, so that it is never taken for a complete
   * one. After the caller's abort nothing more is handed out.
   */
  async *events(start: () => PromiseLike<Response>): AsyncGenerator<SseMessage> {
    try {
      this.arm();
      const body = (await start()).body;
      if (!body) throw new Error("the answer has no body");
      const reader = body.getReader();
      const decoder = new SseDecoder();
      let slice = performance.now();
      try {
        for (;;) {
          this.arm();
          const chunk = await this.read(reader);
          this.disarm();
          if (this.cancelled) break;
          // A clean end completes what only the end can (a CR-only stream's last event).
          const messages = chunk.done ? this.ending(decoder) : decoder.feed(chunk.value);
          if (messages === null) {
            this.fault ??= "malformed";
            throw new Error("malformed stream line");
          }
          for (const message of messages) {
            yield message;
            if (this.cancelled) return;
            if (performance.now() - slice > SLICE_MS) {
              await new Promise((resolve) => setImmediate(resolve));
              slice = performance.now();
            }
          }
          if (chunk.done) break;
        }
      } finally {
        // Unfinished (an error, or the consumer stopped early): the connection is let go.
        reader.cancel().catch(() => {});
      }
    } finally {
      this.disarm();
    }
    if (this.fault && !this.cancelled) throw new Error("the transport ended the stream");
  }

  /** The events the end of the body completes; none when the transport ended it (a fault). */
  private ending(decoder: SseDecoder): SseMessage[] {
    return this.fault ? [] : decoder.end();
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>) {
    try {
      return await reader.read();
    } catch (error) {
      this.noteFault(error);
      throw error;
    }
  }

  /** The call is over: no clock, no listener, and whatever is still open is torn down. */
  close(): void {
    this.disarm();
    this.caller.removeEventListener("abort", this.onAbort);
    this.controller.abort();
  }

  /** A fetch for the SDK: undici with the connect bound; an error's body is bounded. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const http = await loadUndici();
    let response: Awaited<ReturnType<Undici["fetch"]>>;
    try {
      response = await http.fetch(input as string, {
        ...(init as Record<string, unknown>),
        dispatcher: agentFor(this.bounds.connectMs, http),
      });
    } catch (error) {
      this.noteFault(error);
      throw error;
    }
    this.touch();
    // A success's body is read by `events`; an error's by the SDK, through `bounded`.
    if (!response.body || response.ok) return response as unknown as Response;
    return new http.Response(this.bounded(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }) as unknown as Response;
  };

  /**
   * An error answer's body as the SDK reads it: kept up to `ERROR_BODY_BYTES` (it refines the
   * status) and cut there; every chunk restarts a running idle clock; a read error is recorded
   * before the SDK sees it.
   */
  private bounded(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let errorBytes = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (out) => {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await this.read(reader);
        } catch (error) {
          out.error(error);
          return;
        }
        try {
          if (chunk.done) return out.close();
          this.touch();
          const kept = chunk.value.subarray(0, Math.max(0, ERROR_BODY_BYTES - errorBytes));
          errorBytes += kept.length;
          this.errorBody += decoder.decode(kept, { stream: true });
          out.enqueue(kept);
          if (errorBytes < ERROR_BODY_BYTES) return;
          out.close();
          void reader.cancel().catch(() => {});
        } catch {
          // The SDK cancelled the body while this read was under way: nothing left to deliver.
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  /** A transport error, unless it only echoes our own abort (the SDKs abort on a parse error). */
  private noteFault(error: unknown): void {
    if (!this.controller.signal.aborted) this.fault ??= classify(error);
  }

  private arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.fault ??= "timeout";
      this.controller.abort();
    }, this.bounds.idleMs);
  }

  /** A byte came: a running clock starts over; a stopped one (the consumer works) stays stopped. */
  private touch(): void {
    if (this.timer) this.arm();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** A connect timeout is the remote's silence; every other transport error is unavailability. */
function classify(error: unknown): TransportFault {
  for (let cause = error, depth = 0; cause && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT") return "connect_timeout";
    cause = (cause as { cause?: unknown }).cause;
  }
  return "network";
}

/** What every SDK client is built with: our fetch, no retries, no clock of its own, no logging. */
function sdkBounds(guard: CallGuard) {
  return { maxRetries: 0, timeout: SDK_TIMEOUT_MS, fetch: guard.fetch, logLevel: "off" } as const;
}

export interface OpenAiEndpoint {
  baseUrl: string;
  /** null: a keyless server; no `Authorization` header is sent at all. */
  apiKey: string | null;
  headers?: Record<string, string>;
  /** Other credentials of the caller's that no failure of this call may repeat. */
  secrets?: string[];
}

/**
 * An openai SDK client for one call. Everything the SDK would read from the environment
 * (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, the admin key, organization, project, webhook secret,
 * log level, and the headers of `OPENAI_CUSTOM_HEADERS`) is given or removed explicitly, so the
 * child's environment never leaks a key or header into a provider's requests.
 */
export async function openAiClient(guard: CallGuard, endpoint: OpenAiEndpoint): Promise<OpenAI> {
  const { default: OpenAIClient } = await loadOpenAi();
  if (endpoint.apiKey !== null) guard.secrets.push(endpoint.apiKey);
  guard.secrets.push(...(endpoint.secrets ?? []));
  return new OpenAIClient({
    ...sdkBounds(guard),
    baseURL: endpoint.baseUrl,
    // The SDK refuses to start without a key; a keyless call sends a placeholder that the null
    // `Authorization` below removes before the request is built.
    apiKey: endpoint.apiKey ?? "keyless",
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    // Later entries win; a null removes the header, whichever part of the SDK set it.
    defaultHeaders: {
      ...withoutEnvironmentHeaders("OPENAI_CUSTOM_HEADERS"),
      ...endpoint.headers,
      Authorization: endpoint.apiKey === null ? null : `Bearer ${endpoint.apiKey}`,
    } as Record<string, string>,
  });
}

interface AnthropicEndpoint {
  baseUrl: string;
  /** Exactly one of the two is a string: an API key (`x-api-key`) or an OAuth bearer. */
  apiKey: string | null;
  authToken: string | null;
  headers?: Record<string, string>;
}

/**
 * An Anthropic SDK client for one call. The base URL and the one credential are given (so
 * `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and the SDK's credential
 * chain are never consulted) and the headers of `ANTHROPIC_CUSTOM_HEADERS` are removed.
 */
export async function anthropicClient(
  guard: CallGuard,
  endpoint: AnthropicEndpoint,
): Promise<Anthropic> {
  const { Anthropic: AnthropicClient } = await loadAnthropic();
  for (const secret of [endpoint.apiKey, endpoint.authToken])
    if (secret !== null) guard.secrets.push(secret);
  return new AnthropicClient({
    ...sdkBounds(guard),
    baseURL: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    authToken: endpoint.authToken,
    webhookKey: null,
    defaultHeaders: {
      ...withoutEnvironmentHeaders("ANTHROPIC_CUSTOM_HEADERS"),
      ...endpoint.headers,
    } as Record<string, string>,
  });
}

/** A null for each header an SDK would add from `variable` (`Name: value` lines). */
function withoutEnvironmentHeaders(variable: string): Record<string, null> {
  const lines = (process.env[variable] ?? "").split("\n").filter((line) => line.includes(":"));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).trim(), null]));
}

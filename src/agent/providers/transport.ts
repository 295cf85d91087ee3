import type OpenAI from "openai";
import type { Agent } from "undici";
import type { TransportBounds } from "./provider.js";

/**
 * The HTTP under every provider that speaks through an official SDK: undici's fetch with a connect
 * bound, an idle watchdog over the response bytes, and bounded error bodies. The SDK's own retries
 * and timeouts are off: the turn engine retries, and these bounds are the contract's.
 */

/** An error answer's body is read at most this far (it only refines the status). */
export const ERROR_BODY_BYTES = 65_536;
/**
 * The longest line a streaming answer may send (an SSE `data:` line is one chunk). Real chunks are
 * small; a server that sends a whole tool call at once stays far below the 8 MiB record bound.
 */
export const STREAM_LINE_BYTES = 8 * 1_048_576;

type Undici = typeof import("undici");
type OpenAiModule = typeof import("openai");
let undici: Promise<Undici> | null = null;
let openAi: Promise<OpenAiModule> | null = null;
/** Both load on the first model call, not at child start: listings never need them. */
function loadUndici(): Promise<Undici> {
  undici ??= import("undici");
  return undici;
}
export function loadOpenAi(): Promise<OpenAiModule> {
  openAi ??= import("openai");
  return openAi;
}

/** One pool per connect bound (undici fixes the connect timeout per agent). */
const agents = new Map<number, Agent>();
function agentFor(connectMs: number, { Agent }: Undici): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    // The watchdog is the idle bound; undici's own header and body timers are off.
    agent = new Agent({ connect: { timeout: connectMs }, headersTimeout: 0, bodyTimeout: 0 });
    agents.set(connectMs, agent);
  }
  return agent;
}

/**
 * Fires when the remote has sent no byte for `idleMs` while we wait for one. It is armed only
 * while the caller waits (`arm`/`disarm`), so a slow consumer back-pressuring the stream is never
 * mistaken for a silent remote; every byte received while armed resets it (`touch`).
 */
export class IdleWatchdog {
  readonly signal: AbortSignal;
  fired = false;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs: number) {
    this.signal = this.controller.signal;
  }

  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort();
    }, this.idleMs);
  }

  touch(): void {
    if (this.timer) this.arm();
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** What one call's byte stream saw that the SDK would otherwise hide in a generic error. */
export interface StreamFlags {
  /** A line past `STREAM_LINE_BYTES`, or a named event Chat Completions never sends. */
  malformed: boolean;
  /** An error answer's body, up to `ERROR_BODY_BYTES` (the SDK drops bodies it cannot parse). */
  errorBody: string;
}

export function newStreamFlags(): StreamFlags {
  return { malformed: false, errorBody: "" };
}

/**
 * A fetch for one model call: undici's, through the pooled agent, its body counted and watched.
 * A success's lines are bounded (`STREAM_LINE_BYTES`); an error's body is cut at
 * `ERROR_BODY_BYTES`, so neither can grow without bound in memory.
 */
async function watchedFetch(
  bounds: TransportBounds,
  watchdog: IdleWatchdog,
  flags: StreamFlags,
): Promise<typeof fetch> {
  const http = await loadUndici();
  const dispatcher = agentFor(bounds.connectMs, http);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await http.fetch(input as string, {
      ...(init as Record<string, unknown>),
      dispatcher,
    });
    watchdog.touch();
    if (!response.body) return response;
    const counter = response.ok ? lineCounter(watchdog, flags) : prefixCounter(watchdog, flags);
    return new http.Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }) as unknown as typeof fetch;
}

/**
 * Checks a success's lines as they pass: none longer than `STREAM_LINE_BYTES`, and no
 * `event: thread.*` line. Chat Completions never names its events, and for `thread.` events the
 * SDK prints an unparsable chunk's data to the console: the remote's body would reach our log.
 */
class LineGuard {
  private lineBytes = 0;
  private head = "";

  /** False once a line breaks a rule. */
  accept(chunk: Uint8Array): boolean {
    let start = 0;
    for (;;) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      this.lineBytes += end - start;
      const room = LINE_HEAD - this.head.length;
      if (room > 0)
        this.head += Buffer.from(chunk.subarray(start, Math.min(end, start + room))).toString(
          "latin1",
        );
      if (this.lineBytes > STREAM_LINE_BYTES || THREAD_EVENT.test(this.head)) return false;
      if (lf === -1) return true;
      this.lineBytes = 0;
      this.head = "";
      start = lf + 1;
    }
  }
}
const LINE_HEAD = 16;
const THREAD_EVENT = /^event: ?thread\./;

function lineCounter(watchdog: IdleWatchdog, flags: StreamFlags): TransformStream<Uint8Array> {
  const guard = new LineGuard();
  return new TransformStream({
    transform(chunk, controller) {
      watchdog.touch();
      if (!guard.accept(chunk)) {
        flags.malformed = true;
        controller.error(new Error("malformed stream line"));
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

function prefixCounter(watchdog: IdleWatchdog, flags: StreamFlags): TransformStream<Uint8Array> {
  let total = 0;
  const decoder = new TextDecoder();
  return new TransformStream({
    transform(chunk, controller) {
      watchdog.touch();
      const room = ERROR_BODY_BYTES - total;
      total += chunk.length;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      flags.errorBody += decoder.decode(kept, { stream: true });
      controller.enqueue(kept);
      if (total >= ERROR_BODY_BYTES) controller.terminate();
    },
  });
}

export interface ClientOptions {
  baseUrl: string;
  /** null: a keyless server; no `Authorization` header is sent at all. */
  apiKey: string | null;
  bounds: TransportBounds;
  watchdog: IdleWatchdog;
  flags: StreamFlags;
  defaultHeaders?: Record<string, string>;
}

/**
 * An SDK client for one model call. Everything the SDK would read from the environment
 * (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, organization, project, log level, and the headers of
 * `OPENAI_CUSTOM_HEADERS`) is given or removed explicitly, so the child's environment never
 * leaks a key or header into a provider's requests.
 */
export async function openAiClient(options: ClientOptions): Promise<OpenAI> {
  const { default: OpenAIClient } = await loadOpenAi();
  return new OpenAIClient({
    baseURL: options.baseUrl,
    // The SDK refuses to start without a key; a keyless call sends a placeholder that the null
    // `Authorization` below removes before the request is built.
    apiKey: options.apiKey ?? "keyless",
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    // Until the answer's headers; the watchdog is the same bound for them and for the body.
    timeout: options.bounds.idleMs,
    logLevel: "off",
    fetch: await watchedFetch(options.bounds, options.watchdog, options.flags),
    // Later entries win; a null removes the header, whichever part of the SDK set it.
    defaultHeaders: {
      ...Object.fromEntries(environmentHeaderNames().map((name) => [name, null])),
      ...options.defaultHeaders,
      Authorization: options.apiKey === null ? null : `Bearer ${options.apiKey}`,
    } as Record<string, string>,
  });
}

/** The header names the SDK would add from `OPENAI_CUSTOM_HEADERS` (`Name: value` lines). */
function environmentHeaderNames(): string[] {
  const lines = (process.env.OPENAI_CUSTOM_HEADERS ?? "").split("\n");
  return lines.filter((line) => line.includes(":")).map((line) => line.split(":")[0]?.trim() ?? "");
}

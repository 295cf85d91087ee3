import type { Agent } from "undici";
import type { TransportBounds } from "./provider.js";

/**
 * The HTTP under the SDKs: undici's fetch through one pool per connect bound, with an idle
 * watchdog over each call. The SDKs' own retries and timeouts are off; this is the only clock.
 */

type Undici = typeof import("undici");
let undici: Promise<Undici> | null = null;
/** undici loads on the first model call, not at child start. */
function loadUndici(): Promise<Undici> {
  undici ??= import("undici");
  return undici;
}

const agents = new Map<number, Agent>();
function agentFor(connectMs: number, { Agent }: Undici): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    // The watchdog is the idle bound; undici's own header and body timers would cut in at 300 s
    // regardless of activity on a long stream, so they are off.
    agent = new Agent({ connect: { timeout: connectMs }, headersTimeout: 0, bodyTimeout: 0 });
    agents.set(connectMs, agent);
  }
  return agent;
}

/** Far beyond any call: the SDKs take a number, and our watchdog is the real bound. */
export const SDK_TIMEOUT_MS = 2_147_483_647;

/** How the transport under one call failed, when it was the transport. */
export type TransportFault = "timeout" | "connect_timeout" | "network";

/**
 * One model call's guard: a controller the SDK request runs under (aborted by the caller's
 * signal, by the watchdog, or when the call ends), an idle timer reset by every byte and
 * paused while the consumer holds an event, and what went wrong underneath, if anything.
 */
export class CallGuard {
  readonly controller = new AbortController();
  fault: TransportFault | null = null;
  private timer: NodeJS.Timeout | null = null;
  private watching = false;
  private readonly onAbort = () => this.controller.abort();

  constructor(
    private readonly bounds: TransportBounds,
    readonly signal: AbortSignal,
  ) {
    if (signal.aborted) this.controller.abort();
    else signal.addEventListener("abort", this.onAbort, { once: true });
  }

  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Starts (or restarts) the idle clock: a request went out, or a byte came in. */
  touch(): void {
    this.watching = true;
    this.arm();
  }

  /** The consumer holds an event: waiting on it is not the remote's idleness. */
  pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  resume(): void {
    if (this.watching) this.arm();
  }

  /** The body ended: nothing more to wait for. */
  idleDone(): void {
    this.watching = false;
    this.pause();
  }

  close(): void {
    this.idleDone();
    this.signal.removeEventListener("abort", this.onAbort);
    this.controller.abort();
  }

  /** A transport error, unless it only echoes our own abort (the SDK aborts on a parse error). */
  private noteFault(error: unknown): void {
    if (!this.controller.signal.aborted) this.fault ??= classify(error);
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fault ??= "timeout";
      this.controller.abort();
    }, this.bounds.idleMs);
  }

  /** A fetch for the SDK: undici with the connect bound, every body chunk resetting the clock. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const http = await loadUndici();
    this.touch();
    let response: Awaited<ReturnType<Undici["fetch"]>>;
    try {
      response = await http.fetch(input as string, {
        ...(init as object),
        dispatcher: agentFor(this.bounds.connectMs, http),
      });
    } catch (error) {
      this.noteFault(error);
      throw error;
    }
    const body = response.body;
    if (!body) {
      this.idleDone();
      return response as unknown as Response;
    }
    const watched = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, out) => {
          this.touch();
          out.enqueue(chunk);
        },
        flush: () => this.idleDone(),
      }),
    );
    const reader = watched.getReader();
    // Read errors (a reset mid-stream) are recorded before the SDK sees them.
    const recorded = new ReadableStream<Uint8Array>({
      pull: async (out) => {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          this.noteFault(error);
          out.error(error);
          return;
        }
        try {
          if (chunk.done) out.close();
          else out.enqueue(chunk.value);
        } catch {
          // The SDK cancelled the body while this read was under way: nothing left to deliver.
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new http.Response(recorded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }) as unknown as Response;
  };
}

/** A connect timeout is the remote's silence; every other transport error is unavailability. */
function classify(error: unknown): TransportFault {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT") return "connect_timeout";
    e = (e as { cause?: unknown }).cause;
  }
  return "network";
}

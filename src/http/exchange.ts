import type { Agent } from "undici";
import { ProtocolError } from "../protocol/codes.js";
import type { RefreshReason } from "../protocol/schemas/models.js";
import { RefreshFailure } from "./refresh-failure.js";
import { CATALOG_HTTP_WORKERS, catalogHttpSlots } from "./slots.js";
import { loadUndici, type Undici } from "./undici.js";

/**
 * One bounded request/answer exchange with a remote: a provider's model listing, models.dev's
 * enrichment, a Codex token renewal. The catalog refresh (models) and credential renewal
 * (credentials) both speak through it, so they share its process-wide slots and connection pools.
 */

/** Provider HTTP bounds from the contract. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const PROVIDER_WALL_MS = 300_000;
export const PROVIDER_BODY_BYTES = 2 * 1_048_576;

/**
 * One connection pool per connect bound (in practice one: the contract's, plus a test build's),
 * because undici fixes the connect timeout per agent.
 */

const agents = new Map<number, Agent>();
function agentFor(connectMs: number, { Agent }: Undici): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    agent = new Agent({
      connect: { timeout: connectMs },
      connections: CATALOG_HTTP_WORKERS,
      // The wall timer below is the real bound; these only keep undici from cutting in earlier.
      headersTimeout: PROVIDER_WALL_MS,
      bodyTimeout: PROVIDER_WALL_MS,
    });
    agents.set(connectMs, agent);
  }
  return agent;
}

interface HttpCall {
  url: string;
  method?: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  wallMs: number;
  /** The connect bound (TCP, and TLS for https). */
  connectMs: number;
  maxBytes: number;
  /** The reason for a successful answer's body past `maxBytes` (an error answer's is dropped). */
  tooLarge: RefreshReason;
}

/** The two time bounds of one exchange. */
export type ExchangeBounds = Pick<HttpCall, "wallMs" | "connectMs">;

interface HttpResponse {
  status: number;
  body: Buffer;
}

/** An error answer's body, dropped past the bound. */
const EMPTY = Buffer.alloc(0);

/**
 * One bounded HTTP exchange: a process-wide worker slot, a connect timeout, a wall timer
 * over the whole exchange, and a body counted while it streams (aborted one byte past the
 * bound). Cancellation aborts the socket at once. Errors become refresh reasons and never carry
 * the URL, a header or the body.
 */
export async function httpExchange(call: HttpCall, signal: AbortSignal): Promise<HttpResponse> {
  const release = await catalogHttpSlots.acquire(signal);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, call.wallMs);
  const onCancel = () => controller.abort();
  signal.addEventListener("abort", onCancel, { once: true });
  try {
    const http = await loadUndici();
    const response = await http.request(call.url, {
      method: call.method ?? "GET",
      headers: call.headers,
      body: call.body,
      signal: controller.signal,
      dispatcher: agentFor(call.connectMs, http),
    });
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response.body) {
      total += (chunk as Buffer).length;
      if (total > call.maxBytes) {
        controller.abort();
        // An error answer's status says what went wrong and its body only refines it, so past
        // the bound the body is dropped: a size failure would hide a 401 or a 429.
        if (statusReason(response.statusCode) !== null)
          return { status: response.statusCode, body: EMPTY };
        throw new RefreshFailure(call.tooLarge);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: response.statusCode, body: Buffer.concat(chunks, total) };
  } catch (error) {
    if (signal.aborted) throw new ProtocolError("operation_cancelled");
    if (error instanceof RefreshFailure) throw error;
    if (timedOut || isTimeout(error)) throw new RefreshFailure("remote_timeout");
    throw new RefreshFailure("remote_unavailable");
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onCancel);
    release();
  }
}

function isTimeout(error: unknown): boolean {
  const code =
    typeof error === "object" && error !== null ? (error as { code?: unknown }).code : "";
  return (
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "ETIMEDOUT"
  );
}

/** Maps a provider's HTTP status to a refresh reason; null for success. */
export function statusReason(status: number): RefreshReason | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) return "authentication_rejected";
  if (status === 429) return "rate_limited";
  return "remote_unavailable";
}

/** A usable http(s) base URL without trailing slashes, or `configuration_invalid`. */
export function endpointBase(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefreshFailure("configuration_invalid");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new RefreshFailure("configuration_invalid");
  return raw.replace(/\/+$/, "");
}

import { CONNECT_TIMEOUT_MS, PROVIDER_WALL_MS } from "../../http/exchange.js";

/** The refresh's HTTP bounds: the exchange itself is shared with credential renewal (src/http/). */
const ENRICHMENT_WALL_MS = 30_000;
export const ENRICHMENT_BODY_BYTES = 8 * 1_048_576;

/**
 * The time bounds of one refresh's HTTP: the wall clock over a whole provider or enrichment
 * exchange, and the connect bound. Only test builds shorten them.
 */
export interface HttpBounds {
  providerMs: number;
  enrichmentMs: number;
  connectMs: number;
}
export const CONTRACT_HTTP_BOUNDS: HttpBounds = {
  providerMs: PROVIDER_WALL_MS,
  enrichmentMs: ENRICHMENT_WALL_MS,
  connectMs: CONNECT_TIMEOUT_MS,
};

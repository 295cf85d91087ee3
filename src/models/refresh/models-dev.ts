import { endpointBase, httpExchange } from "../../http/exchange.js";
import { ProtocolError } from "../../protocol/codes.js";
import { headChars } from "../../protocol/text-cut.js";
import { type CacheModel, MODALITY_PATTERN, type ModelCost } from "../../store/catalog-cache.js";
import { parseJson } from "../../store/settings.js";
import type { Provider } from "../providers.js";
import { ENRICHMENT_BODY_BYTES } from "./http.js";

/** Efforts offered for a models.dev model marked `"reasoning": true` that the provider left bare. */
const REASONING_EFFORTS = ["low", "medium", "high"];
const REASONING_DEFAULT = "medium";

/**
 * models.dev's api.json, or null when it cannot be had (down, slow, too big, not JSON, bad URL):
 * enrichment is best effort and never fails a refresh. Cancellation still propagates.
 */
export async function fetchModelsDev(
  url: string,
  signal: AbortSignal,
  wallMs: number,
  connectMs: number,
): Promise<unknown> {
  try {
    const response = await httpExchange(
      {
        url: endpointBase(url),
        headers: { accept: "application/json" },
        wallMs,
        connectMs,
        maxBytes: ENRICHMENT_BODY_BYTES,
        tooLarge: "catalog_limit",
      },
      signal,
    );
    if (response.status < 200 || response.status >= 300) return null;
    return parseJson(response.body) ?? null;
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    return null;
  }
}

/** Which models.dev provider describes a provider's models. */
export function modelsDevKey(provider: Provider): string {
  if (provider.type === "codex" || provider.type === "openai") return "openai";
  if (provider.type === "anthropic") return "anthropic";
  return provider.id;
}

/**
 * Fills names, context windows and efforts the provider did not give from models.dev's entry
 * for the same model. The provider's own data wins; models.dev never adds a model.
 */
export function enrich(models: CacheModel[], modelsDev: unknown, key: string): CacheModel[] {
  const known = entriesOf(modelsDev, key);
  if (!known) return models;
  return models.map((model) => {
    const extra = Object.hasOwn(known, model.id) ? known[model.id] : undefined;
    if (!isRecord(extra)) return model;
    const merged: CacheModel = { ...model };
    if (merged.name == null && typeof extra.name === "string")
      merged.name = headChars(extra.name, 256);
    const context = isRecord(extra.limit) ? extra.limit.context : undefined;
    if (merged.context_window == null && isWindow(context)) merged.context_window = context;
    if ((merged.efforts ?? []).length === 0 && extra.reasoning === true) {
      merged.efforts = [...REASONING_EFFORTS];
      merged.default_effort = REASONING_DEFAULT;
    }
    const cost = costOf(extra.cost);
    if (cost) merged.cost = cost;
    const modalities = modalitiesOf(extra.modalities);
    if (modalities) merged.modalities = modalities;
    return merged;
  });
}

/**
 * models.dev's `cost` (`{"input": 3, "output": 15, "cache_read": 0.3, ...}`, USD per million
 * tokens) as the cache keeps it; null unless input and output are both plain prices.
 */
function costOf(value: unknown): ModelCost | null {
  if (!isRecord(value) || !isPrice(value.input) || !isPrice(value.output)) return null;
  return {
    input: value.input,
    output: value.output,
    cache_read: isPrice(value.cache_read) ? value.cache_read : null,
  };
}

/** models.dev's `modalities.input`, the names the cache accepts, at most 16. */
function modalitiesOf(value: unknown): { input: string[] } | null {
  if (!isRecord(value) || !Array.isArray(value.input)) return null;
  const input = value.input.filter(
    (name): name is string => typeof name === "string" && MODALITY_PATTERN.test(name),
  );
  return { input: [...new Set(input)].slice(0, 16) };
}

function isPrice(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1e6;
}

function entriesOf(modelsDev: unknown, key: string): Record<string, unknown> | null {
  if (!isRecord(modelsDev)) return null;
  const provider = modelsDev[key];
  if (!isRecord(provider) || !isRecord(provider.models)) return null;
  return provider.models;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isWindow(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 1e9;
}

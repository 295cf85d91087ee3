import type { CatalogStatus } from "../protocol/schemas/models.js";
import type { CachedModel, CachedProvider } from "../protocol/schemas/settings.js";
import type { CacheModel } from "../store/catalog-cache.js";
import { splitModelId } from "./providers.js";

/** One provider's scan, as `model.cached` needs it. */
interface CachedScan {
  provider: string;
  status: CatalogStatus;
  /** The valid cache's entries by provider-local ID (empty unless `available`). */
  models: ReadonlyMap<string, CacheModel>;
}

/**
 * Every ID of every valid cache, in cache order and marked enabled or not, then each enabled
 * model of that provider the cache lacks (`enabled_missing`). A provider without a valid cache
 * lists nothing: its status says why.
 */
export function cachedModels(scans: readonly CachedScan[], enabled: readonly string[]) {
  const wanted = new Set(enabled);
  const models: CachedModel[] = [];
  const providers: CachedProvider[] = [];
  for (const scan of scans) {
    providers.push({
      provider: scan.provider,
      catalog_status: scan.status,
      models: scan.models.size,
    });
    if (scan.status !== "available") continue;
    for (const entry of scan.models.values()) {
      const id = `${scan.provider}/${entry.id}`;
      models.push({
        id,
        provider: scan.provider,
        model: entry.id,
        name: entry.name ?? null,
        context_window: entry.context_window ?? null,
        state: wanted.has(id) ? "enabled" : "not_enabled",
      });
    }
    for (const id of wanted) {
      const parts = splitModelId(id);
      if (parts?.[0] !== scan.provider || scan.models.has(parts[1])) continue;
      models.push({
        id,
        provider: scan.provider,
        model: parts[1],
        name: null,
        context_window: null,
        state: "enabled_missing",
      });
    }
  }
  return { models, providers };
}

import { RefreshFailure } from "../../http/refresh-failure.js";
import { headChars } from "../../protocol/text-cut.js";
import { wellFormed } from "../../protocol/well-formed.js";
import {
  CACHE_BYTES,
  CACHE_FORMAT,
  CACHE_MODELS,
  CACHE_VERSION,
  CacheFile,
  type CacheModel,
  entryIdentitiesValid,
  serializeCache,
} from "../../store/catalog-cache.js";
import type { Provider } from "../providers.js";

/**
 * The cache bytes a refresh may write: a nonempty catalog of at most 2048 unique safe entries,
 * schema-valid, with the provider's current fingerprint, at most 1 MiB serialized.
 */
export function validateListing(
  models: CacheModel[],
  provider: Provider,
  now = new Date(),
): Buffer {
  if (models.length === 0) throw new RefreshFailure("empty_catalog");
  if (models.length > CACHE_MODELS) throw new RefreshFailure("catalog_limit");
  if (!entryIdentitiesValid(models, provider.id)) throw new RefreshFailure("invalid_catalog");
  const file = CacheFile().safeParse({
    format: CACHE_FORMAT,
    version: CACHE_VERSION,
    provider: provider.id,
    fingerprint: provider.fingerprint,
    fetched_at: now.toISOString(),
    // A long display name is cut rather than failing the refresh; a lone surrogate (an escape
    // in the provider's JSON) becomes U+FFFD, so no catalog frame carries one.
    models: models.map((m) => (m.name ? { ...m, name: wellFormed(headChars(m.name, 256)) } : m)),
  });
  if (!file.success) throw new RefreshFailure("invalid_catalog");
  const bytes = serializeCache(file.data);
  if (bytes.length > CACHE_BYTES) throw new RefreshFailure("catalog_limit");
  return bytes;
}

import type { CacheModel, CacheVerdict } from "../store/catalog-cache.js";

/** A verdict and the valid cache's entries by provider-local ID (empty unless `available`). */
export interface CheckedCache {
  verdict: CacheVerdict;
  models: ReadonlyMap<string, CacheModel>;
}

/**
 * The last verdict on each provider's cache, by the SHA-256 of the bytes it was given and the
 * identity it was checked against. A fresh catalog read still reads and hashes every cache, but
 * bytes it validated before (the usual case: caches change only on a refresh) get the same
 * verdict without a second parse and schema check, which were most of a fresh
 * `model.catalog.status` over a 2000-entry cache (docs/benchmarks.md). Equal digests are equal
 * bytes, and the verdict is a function of bytes, provider and fingerprint, so nothing is served
 * that a rescan would not give.
 */
export class VerdictMemo {
  private readonly last = new Map<string, { key: string; checked: CheckedCache }>();

  /** `check` runs when these bytes were not the last ones checked for this provider. */
  checked(
    provider: string,
    digest: string,
    fingerprint: string,
    check: () => CheckedCache,
  ): CheckedCache {
    const key = `${digest}:${fingerprint}`;
    const known = this.last.get(provider);
    if (known?.key === key) return known.checked;
    const checked = check();
    this.last.set(provider, { key, checked });
    return checked;
  }
}

import { createHash } from "node:crypto";
import { type AuthContext, authenticationReady } from "../credentials/discovery.js";
import { ProtocolError } from "../protocol/codes.js";
import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { CatalogNotice, ModelChoice, ProviderStatus } from "../protocol/schemas/models.js";
import type { CachedModel, CachedProvider } from "../protocol/schemas/settings.js";
import {
  CacheLimitExceeded,
  type CacheModel,
  type CacheVerdict,
  checkCacheFolders,
  type ModelCost,
  readCacheBytes,
  validateCache,
} from "../store/catalog-cache.js";
import { UnsafeStoreFile } from "../store/safe-read.js";
import { cachedModels } from "./cached.js";
import { guidedNotices } from "./notices.js";
import { type Provider, splitModelId } from "./providers.js";
import { recoveryFor } from "./recovery.js";
import type { CheckedCache, VerdictMemo } from "./verdict-memo.js";

/** One revision-scoped view of the cached catalog, shared by model.catalog and its status. */
export interface CatalogSnapshot {
  revision: string;
  choices: ModelChoice[];
  notices: CatalogNotice[];
  providers: ProviderStatus[];
  /** Each choice's `context_window` from its cache (null when the cache gives none). */
  contextWindows: ReadonlyMap<string, number | null>;
  /** Each choice's prices from its cache (null: unknown, no cost is computed). */
  prices: ReadonlyMap<string, ModelCost | null>;
  /** Each choice's input modalities from its cache (null: unknown, anything is sent). */
  modalities: ReadonlyMap<string, readonly string[] | null>;
  /**
   * `model.cached`: every cached ID, enabled or not, and each provider's count. Built on first
   * use (only `model.cached` reads it): a fresh catalog read over a 2000-entry cache built its
   * 2000 entries for nothing.
   */
  cached(): { models: CachedModel[]; providers: CachedProvider[] };
}

interface SnapshotInputs {
  home: string;
  providers: Provider[];
  enabled: readonly string[];
  /** Which settings files are ignored as invalid (the `configuration_invalid` notices). */
  settingsInvalid: { global: boolean; project: boolean };
  selection: Selection;
  auth: AuthContext;
  /** Per-child salt, settings digest and refresh epoch: the non-cache parts of the revision. */
  revisionSeed: string;
  /** Verdicts on bytes seen before (the catalog's, kept across its scans). */
  memo?: VerdictMemo;
  /**
   * The catalog's current snapshot: when the new one has its revision (the same caches, the same
   * settings and epoch), its choices are the same too and are taken over instead of rebuilt.
   */
  previous?: CatalogSnapshot | null;
}

interface ProviderScan {
  provider: Provider;
  digest: string;
  verdict: CacheVerdict;
  /** The valid cache's entries by provider-local ID (empty unless `available`). */
  models: ReadonlyMap<string, CacheModel>;
}

/**
 * Reads and validates every configured provider's cache, then derives choices, notices and
 * statuses. An unsafe or unreadable cache fails the whole read with `catalog_unavailable`, an
 * oversized one with `catalog_limit`: never a fabricated status.
 */
export async function scanCatalog(inputs: SnapshotInputs): Promise<CatalogSnapshot> {
  const scans = await readAll(inputs);
  const enabled = [...new Set(inputs.enabled)];
  const selected = inputs.selection.model ? splitModelId(inputs.selection.model) : null;
  const split = enabled.map(splitModelId);
  const relevant = new Set(split.map((parts) => parts?.[0]));
  if (selected) relevant.add(selected[0]);
  const ready = await readiness(scans, relevant, inputs.auth);
  const byProvider = new Map(scans.map((s) => [s.provider.id, s]));
  const usage: Usage = {
    enabled,
    split,
    selected,
    selectedId: inputs.selection.model,
    relevant,
    ready,
  };
  const revision = revisionOf(inputs.revisionSeed, scans);
  const providers = scans.map((scan) => statusFor(scan, usage));
  const same = inputs.previous?.revision === revision ? inputs.previous : null;
  const choices = same ? same.choices : enabled.flatMap((id) => choiceFor(id, byProvider));
  let cached: ReturnType<CatalogSnapshot["cached"]> | null = null;
  const cachedOf = () =>
    cachedModels(
      scans.map((s) => ({ provider: s.provider.id, status: s.verdict.status, models: s.models })),
      enabled,
    );
  return {
    revision,
    choices,
    contextWindows:
      same?.contextWindows ??
      new Map(
        choices.map((c) => [
          c.id,
          byProvider.get(c.provider)?.models.get(c.model)?.context_window ?? null,
        ]),
      ),
    prices:
      same?.prices ??
      new Map(
        choices.map((c) => [c.id, byProvider.get(c.provider)?.models.get(c.model)?.cost ?? null]),
      ),
    modalities:
      same?.modalities ??
      new Map(
        choices.map((c) => [
          c.id,
          byProvider.get(c.provider)?.models.get(c.model)?.modalities?.input ?? null,
        ]),
      ),
    notices: guidedNotices(inputs.settingsInvalid, providers),
    providers,
    cached: same
      ? same.cached
      : () => {
          cached ??= cachedOf();
          return cached;
        },
  };
}

/** What the settings and the selection make of each provider. */
interface Usage {
  enabled: string[];
  /** Each enabled ID as [provider, model] (null when not of that form), split once. */
  split: ([string, string] | null)[];
  selected: [string, string] | null;
  selectedId: string | null;
  relevant: Set<string | undefined>;
  ready: Map<string, boolean>;
}

/** Salt, epoch and settings (the seed) plus every cache's bytes, as 32 hex digits. */
function revisionOf(seed: string, scans: ProviderScan[]): string {
  return createHash("sha256")
    .update(seed)
    .update(scans.map((s) => `${s.provider.id}=${s.digest}`).join("\n"))
    .digest("hex")
    .slice(0, 32);
}

function statusFor(scan: ProviderScan, usage: Usage): ProviderStatus {
  const id = scan.provider.id;
  const relevant = usage.relevant.has(id);
  const verdict = scan.verdict;
  const authentication = !relevant
    ? "not_checked"
    : usage.ready.get(id)
      ? "ready"
      : "authentication_unavailable";
  const ofThisProvider = usage.split.filter((parts) => parts?.[0] === id);
  return {
    provider: id,
    catalog_status: verdict.status,
    authentication,
    relevant,
    recovery: recoveryFor({
      relevant,
      catalogStatus: verdict.status,
      authentication,
      enabledMissingFromCache: ofThisProvider.some((parts) => !scan.models.has(parts?.[1] ?? "")),
      selectedNotEnabled:
        usage.selected?.[0] === id &&
        scan.models.has(usage.selected[1]) &&
        !usage.enabled.includes(usage.selectedId ?? ""),
    }),
  };
}

async function readAll(inputs: SnapshotInputs): Promise<ProviderScan[]> {
  try {
    await checkCacheFolders(inputs.home);
    const scans: ProviderScan[] = [];
    // One provider at a time: at most one 1 MiB cache is held raw at once.
    for (const provider of inputs.providers) {
      const bytes = await readCacheBytes(inputs.home, provider.id);
      const digest = bytes ? createHash("sha256").update(bytes).digest("hex") : "none";
      const check = () => checkCache(bytes, provider);
      const { verdict, models } = inputs.memo
        ? inputs.memo.checked(provider.id, digest, provider.fingerprint, check)
        : check();
      scans.push({ provider, digest, verdict, models });
    }
    return scans;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw new ProtocolError("catalog_unavailable");
    if (error instanceof CacheLimitExceeded) throw new ProtocolError("catalog_limit");
    throw error;
  }
}

function checkCache(bytes: Buffer | null, provider: Provider): CheckedCache {
  const verdict = validateCache(bytes, provider.id, provider.fingerprint);
  const models = new Map(
    verdict.status === "available" ? verdict.models.map((m) => [m.id, m]) : [],
  );
  return { verdict, models };
}

/** Authentication is checked for relevant providers only; the others are `not_checked`. */
async function readiness(
  scans: ProviderScan[],
  relevant: Set<string | undefined>,
  auth: AuthContext,
): Promise<Map<string, boolean>> {
  const checked = scans.filter((s) => relevant.has(s.provider.id));
  const results = await Promise.all(checked.map((s) => authenticationReady(s.provider, auth)));
  return new Map(checked.map((s, i) => [s.provider.id, results[i] ?? false]));
}

function choiceFor(id: string, byProvider: Map<string, ProviderScan>): ModelChoice[] {
  const parts = splitModelId(id);
  if (!parts) return [];
  const entry = byProvider.get(parts[0])?.models.get(parts[1]);
  if (!entry) return [];
  return [
    {
      id,
      provider: parts[0],
      model: parts[1],
      name: entry.name ?? null,
      efforts: entry.efforts ?? [],
      default_effort: entry.default_effort ?? null,
      selectable: true,
    },
  ];
}

import { createHash } from "node:crypto";
import { ProtocolError } from "../protocol/codes.js";
import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { CatalogNotice, ModelChoice, ProviderStatus } from "../protocol/schemas/models.js";
import {
  CacheLimitExceeded,
  type CacheModel,
  type CacheVerdict,
  checkCacheFolders,
  readCacheBytes,
  validateCache,
} from "../store/catalog-cache.js";
import { UnsafeStoreFile } from "../store/safe-read.js";
import { type AuthContext, authenticationReady } from "./auth.js";
import { type Provider, splitModelId } from "./providers.js";
import { recoveryFor } from "./recovery.js";

/** One revision-scoped view of the cached catalog, shared by model.catalog and its status. */
export interface CatalogSnapshot {
  revision: string;
  choices: ModelChoice[];
  notices: CatalogNotice[];
  providers: ProviderStatus[];
}

export interface SnapshotInputs {
  home: string;
  providers: Provider[];
  enabled: readonly string[];
  settingsInvalid: boolean;
  selection: Selection;
  auth: AuthContext;
  /** Per-child salt, settings digest and refresh epoch: the non-cache parts of the revision. */
  revisionSeed: string;
}

interface ProviderScan {
  provider: Provider;
  digest: string;
  verdict: CacheVerdict;
}

/**
 * Reads and validates every configured provider's cache, then derives choices, notices and
 * statuses. An unsafe or unreadable cache fails the whole read with `catalog_unavailable`, an
 * oversized one with `catalog_limit`: never a fabricated status.
 */
export async function scanCatalog(inputs: SnapshotInputs): Promise<CatalogSnapshot> {
  const scans = await readAll(inputs);
  const revision = createHash("sha256")
    .update(inputs.revisionSeed)
    .update(scans.map((s) => `${s.provider.id}=${s.digest}`).join("\n"))
    .digest("hex")
    .slice(0, 32);
  const enabled = [...new Set(inputs.enabled)];
  const selected = inputs.selection.model ? splitModelId(inputs.selection.model) : null;
  const relevant = new Set(enabled.map((id) => splitModelId(id)?.[0]));
  if (selected) relevant.add(selected[0]);
  const ready = await readiness(scans, relevant, inputs.auth);
  const byProvider = new Map(scans.map((s) => [s.provider.id, s]));
  const choices = enabled.flatMap((id) => choiceFor(id, byProvider));
  const notices: CatalogNotice[] = inputs.settingsInvalid
    ? [{ code: "configuration_invalid" }]
    : [];
  const providers: ProviderStatus[] = [];
  for (const scan of scans) {
    const id = scan.provider.id;
    const isRelevant = relevant.has(id);
    const status = scan.verdict.status;
    if (isRelevant && status !== "available") {
      notices.push({
        code: status === "missing_cache" ? "catalog_missing" : "catalog_invalid",
        provider: id,
      });
    }
    const authentication = !isRelevant
      ? "not_checked"
      : ready.get(id)
        ? "ready"
        : "authentication_unavailable";
    const listed =
      scan.verdict.status === "available" ? modelIds(scan.verdict.models) : new Set<string>();
    providers.push({
      provider: id,
      catalog_status: status,
      authentication,
      relevant: isRelevant,
      recovery: recoveryFor({
        relevant: isRelevant,
        catalogStatus: status,
        authentication,
        enabledMissingFromCache: enabled.some(
          (m) => splitModelId(m)?.[0] === id && !listed.has(splitModelId(m)?.[1] ?? ""),
        ),
        selectedNotEnabled:
          selected?.[0] === id &&
          listed.has(selected[1]) &&
          !enabled.includes(inputs.selection.model ?? ""),
      }),
    });
  }
  return { revision, choices, notices, providers };
}

async function readAll(inputs: SnapshotInputs): Promise<ProviderScan[]> {
  try {
    await checkCacheFolders(inputs.home);
    const scans: ProviderScan[] = [];
    // One provider at a time: at most one 1 MiB cache is held raw at once.
    for (const provider of inputs.providers) {
      const bytes = await readCacheBytes(inputs.home, provider.id);
      const digest = bytes ? createHash("sha256").update(bytes).digest("hex") : "none";
      scans.push({
        provider,
        digest,
        verdict: validateCache(bytes, provider.id, provider.fingerprint),
      });
    }
    return scans;
  } catch (error) {
    if (error instanceof UnsafeStoreFile) throw new ProtocolError("catalog_unavailable");
    if (error instanceof CacheLimitExceeded) throw new ProtocolError("catalog_limit");
    throw error;
  }
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
  const verdict = byProvider.get(parts[0])?.verdict;
  if (verdict?.status !== "available") return [];
  const entry = verdict.models.find((m) => m.id === parts[1]);
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

function modelIds(models: CacheModel[]): Set<string> {
  return new Set(models.map((m) => m.id));
}

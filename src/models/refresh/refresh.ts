import { codexBearer } from "../../credentials/codex-renewal.js";
import { type Credential, discoverCredential } from "../../credentials/discovery.js";
import { endpointBase } from "../../http/exchange.js";
import { RefreshFailure } from "../../http/refresh-failure.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { ModelRefreshResult, RefreshReason } from "../../protocol/schemas/models.js";
import {
  AtomicWriteError,
  type CommitSteps,
  type RenameGate,
  writeFileAtomic,
} from "../../store/atomic-write.js";
import {
  type CacheModel,
  cachePath,
  checkCacheFolders,
  readCacheBytes,
} from "../../store/catalog-cache.js";
import type { CredentialPaths, CredentialUpdateOptions } from "../../store/credentials.js";
import type { LoadedSettings } from "../../store/settings.js";
import type { Catalog } from "../catalog.js";
import { DEFAULT_MODELS_DEV_URL, type Provider } from "../providers.js";
import { type ListingAuth, listModels } from "./adapters.js";
import type { HttpBounds } from "./http.js";
import { enrich, fetchModelsDev, modelsDevKey } from "./models-dev.js";
import { validateListing } from "./validate.js";

interface RefreshDeps {
  catalog: Catalog;
  settings: LoadedSettings;
  providers: Provider[];
  paths: CredentialPaths;
  home: string;
  env: NodeJS.ProcessEnv;
  log: (level: "warn" | "info", message: string) => void;
  /** The HTTP bounds (the contract's: CONTRACT_HTTP_BOUNDS). */
  http: HttpBounds;
  /** The cache write's rename and folder sync (default the file system's, atomic-write.ts). */
  cacheCommit?: CommitSteps;
  /** How a renewed credential is written back (credentials.ts; default the atomic write). */
  credentialWrite?: CredentialUpdateOptions;
  /**
   * The request's commit: the cache rename runs through it, so a cancel observed before the
   * rename writes nothing, and a rename once issued makes the request answer its outcome.
   */
  commit: RenameGate;
}

/**
 * model.refresh: authenticate, list, enrich, validate, persist, then rescan. Every admitted
 * refresh kills earlier cursors and guards first, whatever its outcome. Cancellation is checked
 * between the phases (and polled inside HTTP); once observed, nothing more is written.
 */
export async function refreshProvider(
  providerId: string,
  signal: AbortSignal,
  deps: RefreshDeps,
): Promise<ModelRefreshResult> {
  const provider = deps.providers.find((p) => p.id === providerId);
  if (!provider) throw new ProtocolError("invalid_params", "No configured provider has that name.");
  deps.catalog.invalidate();
  let reason: RefreshReason | null;
  try {
    reason = await attempt(provider, signal, deps);
  } catch (error) {
    if (!(error instanceof RefreshFailure)) throw error;
    reason = error.reason;
  }
  // New bytes on disk (reason null) were committed: the answer must be the outcome, not a cancel.
  if (reason !== null) checkpoint(signal);
  deps.log("info", `refresh finished: ${reason ?? "refreshed"}`);
  const scan = await rescan(deps.catalog);
  return {
    provider: provider.id,
    outcome: reason === null ? "refreshed" : "failed",
    reason,
    catalog_revision: scan.revision,
    catalog_error: scan.error,
    recovery: "reload_catalog",
    configuration_reload: "restart_child",
    selection_unchanged: true,
  };
}

async function attempt(
  provider: Provider,
  signal: AbortSignal,
  deps: RefreshDeps,
): Promise<RefreshReason | null> {
  // Refresh depends on the global file only (providers, endpoints, models_dev_url); an invalid
  // project file changes preferences, never what a refresh fetches.
  if (deps.settings.invalid.global) return "configuration_invalid";
  endpointBase(provider.base_url);
  const credential = await discoverCredential(provider, { env: deps.env, paths: deps.paths });
  if (!credential) return "authentication_unavailable";
  const auth = await listingAuth(credential, provider, deps);
  checkpoint(signal);
  const listed = await listModels(provider, auth, {
    signal,
    wallMs: deps.http.providerMs,
    connectMs: deps.http.connectMs,
  });
  checkpoint(signal);
  const modelsDev = await fetchModelsDev(
    deps.settings.global.models_dev_url ?? DEFAULT_MODELS_DEV_URL,
    signal,
    deps.http.enrichmentMs,
    deps.http.connectMs,
  );
  const enriched: CacheModel[] = enrich(listed, modelsDev, modelsDevKey(provider));
  checkpoint(signal);
  const bytes = validateListing(enriched, provider);
  checkpoint(signal);
  return persist(bytes, provider, deps);
}

async function listingAuth(
  credential: Credential,
  provider: Provider,
  deps: RefreshDeps,
): Promise<ListingAuth> {
  if (credential.kind !== "codex") return credential;
  const bounds = { wallMs: deps.http.providerMs, connectMs: deps.http.connectMs };
  const bearer = await codexBearer(credential, provider, deps.paths, deps.log, bounds, {
    ...(deps.credentialWrite ? { write: deps.credentialWrite } : {}),
  });
  return { kind: "codex", token: bearer.token, account_id: bearer.account_id };
}

/**
 * Atomic persistence. When the commit is uncertain (the rename's outcome is unknown, or the
 * folder fsync failed after it), the cache is reread: the answer is what is on disk, `refreshed`
 * only if the cache holds exactly the new bytes.
 */
async function persist(
  bytes: Buffer,
  provider: Provider,
  deps: RefreshDeps,
): Promise<RefreshReason | null> {
  const { home } = deps;
  const path = cachePath(home, provider.id);
  try {
    // Never write through a symlinked cache folder.
    await checkCacheFolders(home);
    // The rename is the commit point: the signal is checked right before it is issued.
    await writeFileAtomic(path, bytes, 0o600, deps.commit, deps.cacheCommit);
    return null;
  } catch (error) {
    // A refused commit (cancelled before the rename): nothing was written.
    if (error instanceof ProtocolError) throw error;
    if (!(error instanceof AtomicWriteError) || error.stage !== "uncertain")
      return "cache_write_failed";
    const reread = await readCacheBytes(home, provider.id).catch(() => null);
    return reread?.equals(bytes) ? null : "cache_write_failed";
  }
}

async function rescan(
  catalog: Catalog,
): Promise<{ revision: string | null; error: string | null }> {
  try {
    return { revision: (await catalog.fresh()).revision, error: null };
  } catch (error) {
    if (error instanceof ProtocolError) return { revision: null, error: error.code };
    throw error;
  }
}

function checkpoint(signal: AbortSignal): void {
  if (signal.aborted) throw new ProtocolError("operation_cancelled");
}

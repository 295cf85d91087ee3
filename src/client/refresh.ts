import type { ResultOf } from "../protocol/methods.js";
import type { ModelRefreshResult } from "../protocol/schemas/models.js";
import type { Caller } from "./caller.js";
import {
  type CatalogGuard,
  type CatalogRead,
  type CatalogStatusRead,
  readCatalog,
  readCatalogStatus,
} from "./catalog.js";
import type { CallOptions } from "./connection.js";
import { ClientError, RemoteError } from "./errors.js";

export type { CatalogGuard } from "./catalog.js";

export interface RefreshReport {
  /** The child's answer: `refreshed` or `failed` with its reason. */
  result: ModelRefreshResult;
  /** The catalog reloaded after the refresh (null when model.catalog was not negotiated). */
  catalog: CatalogRead | null;
  /** The status reloaded after the refresh (null when model.catalog.status was not negotiated). */
  status: CatalogStatusRead | null;
  /** The fresh guard to select with, from the last reload; null when the reload failed. */
  guard: CatalogGuard | null;
  /** Why the reload failed, if it did; the refresh outcome above still holds. */
  reloadError: RemoteError | ClientError | null;
}

/**
 * Sends `model.refresh` for one named provider, then reloads the cached catalog and status.
 * A cancelled refresh rejects with `operation_cancelled` (nothing claims it completed).
 */
export async function refreshProvider(
  client: Caller,
  provider: string,
  epoch: () => number,
  options: CallOptions,
): Promise<RefreshReport> {
  const result = await client.call("model.refresh", { provider }, options);
  const report: RefreshReport = {
    result,
    catalog: null,
    status: null,
    guard: null,
    reloadError: null,
  };
  try {
    if (client.has("model.catalog.status")) {
      report.status = await readCatalogStatus(client, epoch(), options);
      report.guard = report.status.guard;
    }
    if (client.has("model.catalog")) {
      report.catalog = await readCatalog(client, epoch(), options);
      report.guard = report.catalog.guard;
    }
  } catch (error) {
    if (!(error instanceof RemoteError || error instanceof ClientError)) throw error;
    report.reloadError = error;
    report.guard = null;
  }
  return report;
}

interface SelectRequest {
  model: string;
  effort: string | null;
  guard: CatalogGuard;
  /** The client's current guard epoch. */
  epoch: number;
}

/** Explicit selection only; a guard from before a refresh or restart is refused unsent. */
export function selectModel(
  client: Caller,
  request: SelectRequest,
  options: CallOptions,
): Promise<ResultOf<"model.select">> {
  if (request.guard.epoch !== request.epoch)
    return Promise.reject(
      new ClientError(
        "stale_guard",
        "That catalog read predates a refresh or restart; reload the catalog and choose again.",
      ),
    );
  return client.call(
    "model.select",
    { model: request.model, effort: request.effort, catalog_revision: request.guard.revision },
    options,
  );
}

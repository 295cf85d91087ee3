import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { CatalogNotice, ModelChoice, ProviderStatus } from "../protocol/schemas/models.js";
import type { Caller } from "./caller.js";
import type { CallOptions } from "./connection.js";
import { ClientError, isRemote } from "./errors.js";
import { followCursor, withCursor } from "./pager.js";

/** Proof of which catalog read a selection is based on; stale after any refresh or restart. */
export interface CatalogGuard {
  readonly revision: string;
  readonly epoch: number;
}

export interface CatalogRead {
  revision: string;
  choices: ModelChoice[];
  selection: Selection;
  notices: CatalogNotice[];
  guard: CatalogGuard;
}

export interface CatalogStatusRead extends CatalogRead {
  providers: ProviderStatus[];
  configurationReload: "restart_child";
}

interface CatalogPage {
  revision: string;
  choices: ModelChoice[];
  selection: Selection;
  notices: CatalogNotice[];
  cursor: string | null;
  complete: boolean;
  providers?: ProviderStatus[];
}

/** Fresh reads after which a catalog that keeps changing is reported instead of retried. */
export const CATALOG_READ_ATTEMPTS = 3;

export async function readCatalog(
  client: Caller,
  epoch: number,
  options: CallOptions,
): Promise<CatalogRead> {
  const pages = await readAllPages((cursor) =>
    client.call("model.catalog", withCursor({}, cursor), options),
  );
  return merge(pages, epoch);
}

export async function readCatalogStatus(
  client: Caller,
  epoch: number,
  options: CallOptions,
): Promise<CatalogStatusRead> {
  const pages = await readAllPages((cursor) =>
    client.call("model.catalog.status", withCursor({}, cursor), options),
  );
  const providers = new Map<string, ProviderStatus>();
  for (const page of pages) for (const p of page.providers ?? []) providers.set(p.provider, p);
  return {
    ...merge(pages, epoch),
    providers: [...providers.values()],
    configurationReload: "restart_child",
  };
}

/**
 * Follows the cursor chain of one revision. A page of another revision or `stale_revision`
 * means the catalog changed under the read: everything read is discarded and a fresh read
 * starts, at most CATALOG_READ_ATTEMPTS times.
 */
async function readAllPages<P extends CatalogPage>(
  fetchPage: (cursor: string | null) => Promise<P>,
): Promise<P[]> {
  for (let attempt = 1; attempt <= CATALOG_READ_ATTEMPTS; attempt += 1) {
    const pages = await followRevision(fetchPage);
    if (pages) return pages;
  }
  throw new ClientError(
    "catalog_unstable",
    `The catalog changed during ${CATALOG_READ_ATTEMPTS} reads in a row.`,
  );
}

async function followRevision<P extends CatalogPage>(
  fetchPage: (cursor: string | null) => Promise<P>,
): Promise<P[] | null> {
  const pages: P[] = [];
  try {
    for await (const page of followCursor(fetchPage, "catalog")) {
      if (pages[0] && page.revision !== pages[0].revision) return null;
      pages.push(page);
    }
  } catch (error) {
    if (isRemote(error, "stale_revision")) return null;
    throw error;
  }
  return pages;
}

function merge(pages: CatalogPage[], epoch: number): CatalogRead {
  const first = pages[0] as CatalogPage;
  const last = pages[pages.length - 1] as CatalogPage;
  const choices = new Map<string, ModelChoice>();
  const notices = new Map<string, CatalogNotice>();
  for (const page of pages) {
    for (const choice of page.choices) choices.set(choice.id, choice);
    for (const notice of page.notices) notices.set(JSON.stringify(notice), notice);
  }
  return {
    revision: first.revision,
    choices: [...choices.values()],
    selection: last.selection,
    notices: [...notices.values()],
    guard: Object.freeze({ revision: first.revision, epoch }),
  };
}

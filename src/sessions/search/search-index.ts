import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The search index (docs/store.md, "The search index"): beside the verdicts, in this home's
 * cache folder (`<root>/sessions-<hex>/`, verdicts/verdict-root.ts), never in MC_HOME. One
 * folder per workspace, `search-<32 hex of SHA-256 of the canonical cwd>/`, one file per
 * session, `<id>.json`: the history's signature when it was read and validated for that
 * workspace, its title and updated_at, and each searchable record's index and text. A file
 * whose signature differs from the history's now is stale: the history is read again and the
 * file rewritten (search-index-writer.ts, after the search). Deleting any of it at any time is
 * safe.
 */
export interface IndexedSession {
  format: "mc-search-index";
  version: 1;
  signature: string;
  title: string | null;
  updated_at: string;
  /** [record_index, searchable text] for each record that has one. */
  records: [number, string][];
}

/** Index files larger than this are neither written nor read (a history's text is far less). */
export const INDEX_FILE_MAX_BYTES = 64 * 1024 * 1024;

export function workspaceIndexFolder(cacheFolder: string, workspace: string): string {
  const digest = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  return join(cacheFolder, `search-${digest}`);
}

export function readIndexed(folder: string, id: string): IndexedSession | null {
  try {
    const text = readFileSync(join(folder, `${id}.json`), "utf8");
    if (text.length > INDEX_FILE_MAX_BYTES) return null;
    const value = JSON.parse(text) as IndexedSession;
    if (value?.format !== "mc-search-index" || value.version !== 1) return null;
    if (typeof value.signature !== "string" || !Array.isArray(value.records)) return null;
    return value;
  } catch {
    return null; // missing, torn or foreign: a miss
  }
}

/**
 * Removes a session's search-index entry for `workspace` (session delete calls it). `cacheFolder`
 * is this home's cache folder (VerdictPlace.folder). Missing entries are fine.
 */
export function forgetSearchEntries(cacheFolder: string, workspace: string, sessionId: string) {
  rmSync(join(workspaceIndexFolder(cacheFolder, workspace), `${sessionId}.json`), { force: true });
}

import { type BigIntStats, lstatSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/codes.js";
import { fileSignature, folderSignature } from "../../store/inventory.js";
import { sessionsDir } from "../../store/layout.js";
import { inspectRoot } from "../../store/safe-open.js";
import { CwdMatcher } from "../history/cwd-rule.js";
import { validateHistory } from "../history/validate.js";
import { DirectoryPass } from "../listing/discover-directory-pass.js";
import { type Clock, realClock, Slicer } from "../slicer.js";
import {
  INDEX_FILE_MAX_BYTES,
  type IndexedSession,
  IndexReader,
  workspaceIndexFolder,
} from "./search-index.js";
import type { SearchIndexWriter } from "./search-index-writer.js";
import { QueryMatcher, SEARCH_QUERY_MAX_CHARS, searchableText } from "./search-text.js";

/**
 * A `session.search` scan: like discovery (listing/discover.ts), a held directory iterator, a
 * bounded step per page, a second pass at the end whose inventory must equal the first's (else
 * `stale_revision`). Each history is searched through its index entry when that entry's
 * signature equals the history's `lstat` now; otherwise the history is validated for this
 * workspace (the cwd rule: another workspace's sessions never appear) and its searchable text
 * taken from the same pass (one read), and its entry queued for the index writer, which writes
 * it after the search (search-index-writer.ts). State between steps: the iterators and the hits
 * of one session that did not fit.
 */
export interface SearchHit {
  id: string;
  title: string | null;
  updated_at: string | null;
  record_index: number;
  snippet: string;
}

export const SEARCH_PAGE_HITS = 64;
export const SEARCH_STEP_MS = 50;

export interface SearchStep {
  hits: SearchHit[];
  complete: boolean;
}

export function checkQuery(query: string): void {
  if (query.length < 1 || query.length > SEARCH_QUERY_MAX_CHARS)
    throw new ProtocolError("invalid_params");
}

/** Where a search's index is: this home's cache folder (VerdictPlace.folder) and its writer. */
export interface SearchIndexPlace {
  cacheFolder: string;
  writer: SearchIndexWriter;
}

export class SearchScan {
  private readonly root: string;
  private readonly cwd: CwdMatcher;
  private readonly matcher: QueryMatcher;
  private readonly indexFolder: string | null;
  private readonly reader: IndexReader | null;
  private readonly writer: SearchIndexWriter | null;
  private first: DirectoryPass | null = null;
  private pending: SearchHit[] = [];
  /** The folder's signature when the scan began (null: no folder), checked at every step. */
  private readonly folder: string | null;
  /** Index files read and histories read, for tests and the bench. */
  readonly counts = { indexed: 0, read: 0 };

  /** `index`: null for no index (no cache root, or MC_AGENT_VERDICTS=off). */
  constructor(
    home: string,
    workspace: string,
    query: string,
    archived: boolean,
    index: SearchIndexPlace | null,
    private readonly clock: Clock = realClock,
  ) {
    checkQuery(query);
    this.matcher = new QueryMatcher(query);
    this.root = archived ? join(sessionsDir(home), "archive") : sessionsDir(home);
    this.cwd = new CwdMatcher(workspace);
    this.indexFolder = index ? workspaceIndexFolder(index.cacheFolder, workspace) : null;
    this.writer = index?.writer ?? null;
    this.reader = this.indexFolder
      ? new IndexReader(this.indexFolder, this.matcher.rawNeedle)
      : null;
    this.folder = this.folderState();
    if (this.folder !== null) this.first = new DirectoryPass(this.root);
  }

  /** The folder's identity, permissions and change time; an entry added or removed changes it. */
  private folderState(): string | null {
    if (inspectRoot(this.root) === "missing") return null;
    return folderSignature(lstatSync(this.root, { bigint: true }));
  }

  private assertConsistent(): void {
    if (this.folderState() !== this.folder) throw new ProtocolError("stale_revision");
  }

  /** One bounded step: at most SEARCH_PAGE_HITS hits, about SEARCH_STEP_MS of work. */
  async step(signal: AbortSignal): Promise<SearchStep> {
    // Entries queued by earlier steps are written first when the queue is full (its bound);
    // a cancel ends the wait.
    if (this.writer?.full) await untilAborted(this.writer.room(), signal);
    // No index write starts while the step reads: they run between steps and after the last.
    const release = this.writer?.hold() ?? (() => {});
    try {
      return await this.stepHeld(signal);
    } finally {
      release();
    }
  }

  private async stepHeld(signal: AbortSignal): Promise<SearchStep> {
    const slicer = new Slicer(signal, this.clock);
    const deadline = this.clock() + SEARCH_STEP_MS;
    const hits: SearchHit[] = [];
    this.assertConsistent();
    for (;;) {
      if (signal.aborted) throw new ProtocolError("operation_cancelled");
      while (this.pending.length > 0 && hits.length < SEARCH_PAGE_HITS)
        hits.push(this.pending.shift() as SearchHit);
      if (hits.length >= SEARCH_PAGE_HITS) return { hits, complete: false };
      if (slicer.now >= deadline && hits.length > 0) return { hits, complete: false };
      const entry = this.first?.next() ?? null;
      if (entry === null) {
        this.finish();
        return { hits, complete: true };
      }
      if (entry.kind.kind === "primary" && entry.stats.isFile())
        this.pending = await this.searchHistory(entry.kind.id, entry.stats, slicer);
      await slicer.pause(Number(entry.stats.size) || 1);
      // A full index queue ends the step: the next one lets it be written first.
      if (slicer.now >= deadline || this.writer?.full) return { hits, complete: false };
    }
  }

  close(): void {
    this.first?.close();
    this.first = null;
    this.pending = [];
  }

  private finish(): void {
    this.assertConsistent();
    if (this.first === null) return;
    const second = new DirectoryPass(this.root);
    while (second.next() !== null) {}
    if (!this.first.signature.equals(second.signature)) throw new ProtocolError("stale_revision");
  }

  private async searchHistory(id: string, stats: BigIntStats, slicer: Slicer) {
    const signature = fileSignature(stats);
    const found = this.reader?.read(id, signature) ?? null;
    if (found !== null) this.counts.indexed += 1;
    if (found === "unmatched") return [];
    const indexed = found ?? (await this.readHistory(id, stats, slicer));
    if (indexed === null) return [];
    const hits: SearchHit[] = [];
    for (const [record_index, text] of indexed.records) {
      const snippet = this.matcher.snippet(text);
      if (snippet !== null)
        hits.push({
          id,
          title: indexed.title,
          updated_at: indexed.updated_at,
          record_index,
          snippet,
        });
    }
    return hits;
  }

  /**
   * Validates one history and takes its searchable text from the same pass; its index entry
   * (queued for the writer), or null when it is not listed here.
   */
  private async readHistory(id: string, stats: BigIntStats, slicer: Slicer) {
    this.counts.read += 1;
    const records: [number, string][] = [];
    let index = 0;
    const sink = (event: unknown) => {
      const searchable = searchableText(event);
      if (searchable !== null) records.push([index, searchable]);
      index += 1;
    };
    const checked = await validateHistory(this.root, id, this.cwd, slicer, { sink });
    if (checked.kind !== "eligible") return null;
    // The bytes validated are the ones the directory pass saw (else the store changed).
    if (checked.signature !== fileSignature(stats)) throw new ProtocolError("stale_revision");
    const entry = checked.summary.entry(id, false);
    const indexed: IndexedSession = {
      format: "mc-search-index",
      version: 1,
      signature: checked.signature,
      title: entry.title,
      updated_at: entry.updated_at as string,
      records,
    };
    if (this.indexFolder && this.writer) {
      const body = JSON.stringify(indexed);
      if (body.length <= INDEX_FILE_MAX_BYTES)
        this.writer.enqueue(
          this.indexFolder,
          id,
          body,
          join(this.root, `${id}.jsonl`),
          checked.signature,
        );
    }
    return indexed;
  }
}

/** `work`, or the abort of `signal` if that comes first (the step then sees it aborted). */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    work.then(done, done);
  });
}

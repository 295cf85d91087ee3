import { createHash, randomBytes } from "node:crypto";
import { ProtocolError } from "../protocol/codes.js";
import { LIMITS } from "../protocol/constants.js";
import { fillPage, PageOverflow } from "../protocol/paging.js";
import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { ModelCatalogResult, ModelCatalogStatusResult } from "../protocol/schemas/models.js";
import type { ModelCachedResult } from "../protocol/schemas/settings.js";
import type { CredentialPaths } from "../store/credentials.js";
import type { LoadedSettings } from "../store/settings.js";
import { plainNotices } from "./notices.js";
import type { Provider } from "./providers.js";
import { type CatalogSnapshot, scanCatalog } from "./snapshot.js";
import { VerdictMemo } from "./verdict-memo.js";

/** Opaque single-use cursors (the server's CursorStore satisfies this). */
interface CursorKeeper<T> {
  issue(state: T): string;
  take(cursor: string): T | undefined;
  clear(): void;
}

export interface PagePosition {
  snapshot: CatalogSnapshot;
  offset: number;
}

interface CatalogDeps {
  home: string;
  env: NodeJS.ProcessEnv;
  settings: LoadedSettings;
  providers: Provider[];
  paths: CredentialPaths;
  /** The live selection (the server state's). */
  selection: () => Selection;
  catalogCursors: CursorKeeper<PagePosition>;
  statusCursors: CursorKeeper<PagePosition>;
  cachedCursors: CursorKeeper<PagePosition>;
}

/** The largest cursor a page may carry, for the page's byte envelope. */
const CURSOR_PLACEHOLDER = "x".repeat(64);

/**
 * The cached catalog: fresh reads rescan, continuations page the snapshot they started, and a
 * refresh bumps the epoch so every earlier cursor and guard dies.
 */
export class Catalog {
  private epoch = 0;
  private current: CatalogSnapshot | null = null;
  /** Guards are child-scoped: a revision from another child never matches here. */
  private readonly salt = randomBytes(16).toString("hex");
  private readonly settingsDigest: string;
  private readonly memo = new VerdictMemo();

  constructor(private readonly deps: CatalogDeps) {
    this.settingsDigest = createHash("sha256").update(JSON.stringify(deps.settings)).digest("hex");
  }

  /** Rescans the caches and makes the result the current revision. */
  async fresh(): Promise<CatalogSnapshot> {
    const epoch = this.epoch;
    const snapshot = await this.scan();
    // A refresh admitted while this scan ran made it stale: its cursors must not outlive it.
    if (epoch !== this.epoch) return snapshot;
    if (this.current?.revision !== snapshot.revision) this.dropCursors();
    this.current = snapshot;
    return snapshot;
  }

  /**
   * Reads the caches as fresh() does, so that the next fresh() finds their verdicts in the memo
   * and its code warm (a child's first turn, docs/store.md), without making the result the
   * current revision: no cursor or guard is touched.
   */
  async warm(): Promise<void> {
    await this.scan();
  }

  private scan(): Promise<CatalogSnapshot> {
    return scanCatalog({
      home: this.deps.home,
      providers: this.deps.providers,
      enabled: this.deps.settings.global.enabled_models ?? [],
      settingsInvalid: this.deps.settings.invalid,
      selection: this.deps.selection(),
      auth: { env: this.deps.env, paths: this.deps.paths },
      revisionSeed: `${this.salt}:${this.epoch}:${this.settingsDigest}`,
      memo: this.memo,
      previous: this.current,
    });
  }

  /** A refresh was admitted: kill every cursor and guard issued so far. */
  invalidate(): void {
    this.epoch += 1;
    this.current = null;
    this.dropCursors();
  }

  /** `guided`: `errors.recovery` was negotiated, so notices carry their next steps. */
  async catalogPage(cursor: string | undefined, guided = false): Promise<ModelCatalogResult> {
    const { snapshot, offset } = await this.position(cursor, this.deps.catalogCursors);
    const base = {
      revision: snapshot.revision,
      selection: this.deps.selection(),
      notices: guided ? snapshot.notices : plainNotices(snapshot.notices),
    };
    const page = this.page(snapshot.choices, snapshot, offset, base, this.deps.catalogCursors);
    return { ...base, choices: page.items, cursor: page.cursor, complete: page.complete };
  }

  async statusPage(cursor: string | undefined, guided = false): Promise<ModelCatalogStatusResult> {
    const { snapshot, offset } = await this.position(cursor, this.deps.statusCursors);
    const base = {
      revision: snapshot.revision,
      selection: this.deps.selection(),
      notices: guided ? snapshot.notices : plainNotices(snapshot.notices),
      configuration_reload: "restart_child" as const,
      providers: snapshot.providers,
    };
    const page = this.page(snapshot.choices, snapshot, offset, base, this.deps.statusCursors);
    return { ...base, choices: page.items, cursor: page.cursor, complete: page.complete };
  }

  /** `model.cached`: every cached ID, paged like the catalog over the same snapshot. */
  async cachedPage(cursor: string | undefined): Promise<ModelCachedResult> {
    const { snapshot, offset } = await this.position(cursor, this.deps.cachedCursors);
    const cached = snapshot.cached();
    const base = { revision: snapshot.revision, providers: cached.providers };
    const list = cached.models;
    const page = this.page(list, snapshot, offset, base, this.deps.cachedCursors, "models");
    return { ...base, models: page.items, cursor: page.cursor, complete: page.complete };
  }

  private async position(
    cursor: string | undefined,
    cursors: CursorKeeper<PagePosition>,
  ): Promise<PagePosition> {
    if (cursor === undefined) return { snapshot: await this.fresh(), offset: 0 };
    const position = cursors.take(cursor);
    if (!position || position.snapshot.revision !== this.current?.revision)
      throw new ProtocolError("stale_revision");
    return position;
  }

  /** One page of `list` through the shared pager; the envelope carries everything else. */
  private page<T>(
    list: readonly T[],
    snapshot: CatalogSnapshot,
    offset: number,
    envelope: object,
    cursors: CursorKeeper<PagePosition>,
    field = "choices",
  ): { items: T[]; cursor: string | null; complete: boolean } {
    const envelopeBytes = Buffer.byteLength(
      JSON.stringify({ ...envelope, [field]: [], cursor: CURSOR_PLACEHOLDER, complete: false }),
    );
    let filled: ReturnType<typeof fillPage>;
    try {
      filled = fillPage(list.slice(offset), envelopeBytes, {
        entries: LIMITS.page_entries,
        bytes: LIMITS.page_bytes,
      });
    } catch (error) {
      // Cache entries are bounded so that one choice always fits; reaching this is a bug.
      if (error instanceof PageOverflow) throw new ProtocolError("internal_error");
      throw error;
    }
    const next = offset + filled.items.length;
    const done = next >= list.length;
    return {
      items: filled.items as T[],
      cursor: done ? null : cursors.issue({ snapshot, offset: next }),
      complete: done,
    };
  }

  private dropCursors(): void {
    this.deps.catalogCursors.clear();
    this.deps.statusCursors.clear();
    this.deps.cachedCursors.clear();
  }
}

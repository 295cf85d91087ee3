import { type BigIntStats, lstatSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.js";
import { DISCOVER_EXTENSION } from "../../protocol/constants.js";
import { PageBuilder } from "../../protocol/paging.js";
import type { DiscoveryProgress, SessionEntry } from "../../protocol/schemas/sessions.js";
import { folderSignature, sameFile } from "../../store/inventory.js";
import { sessionsDir } from "../../store/layout.js";
import { isBusy } from "../../store/locks.js";
import { errorCode, inspectRoot, openPrimary, StoreUnavailable } from "../../store/safe-open.js";
import { CwdMatcher } from "../history/cwd-rule.js";
import type { WorkBudget } from "../history/history-scan.js";
import { withPageBytesError } from "../page-bytes.js";
import { READ_BUFFER_BYTES } from "../records/record-reader.js";
import { type Clock, realClock, Slicer } from "../slicer.js";
import {
  type CachedOutcome,
  type VerdictCache,
  VerdictSession,
} from "../verdicts/verdict-cache.js";
import { DirectoryPass, type PassEntry } from "./discover-directory-pass.js";
import { STEP_ENVELOPE_BYTES } from "./discover-envelope.js";
import { HeldHistory } from "./discover-held-history.js";
import { emptyCounts, type NoticeCounts } from "./notices.js";

/**
 * A child-owned discovery scan (docs/extensions.md, "Incremental session discovery"). Its state
 * between steps is: a held directory iterator, at most one held history reader, at most one
 * entry that did not fit the previous page, two inventory signatures and the notice counts.
 * Nothing grows with the store: no candidate list, no whole history.
 */
interface StepOutcome {
  sessions: SessionEntry[];
  /** Totals so far; the completing page carries the scan's totals. */
  counts: NoticeCounts;
  progress: DiscoveryProgress;
}

interface StepBudget extends WorkBudget {
  /** Directory entries this step may still take (`step_directory_entries`). */
  entries: number;
}

type Phase = "enumerate" | "validate";

/** A directory entry's weight for the slicer: each one reads the clock, as before. */
const ENTRY_WORK = 32 * 1024;

type AttachmentProbe = () => unknown;

export class DiscoveryScan {
  private readonly root: string;
  private readonly cwd: CwdMatcher;
  private readonly counts = emptyCounts();
  private readonly folder: string | null;
  private readonly attachment: string;
  private phase: Phase = "enumerate";
  private first: DirectoryPass | null = null;
  private second: DirectoryPass | null = null;
  private held: HeldHistory | null = null;
  private pending: SessionEntry | null = null;
  /** The scan's one read buffer, lent to each held history in turn. */
  private readonly buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  /** The verdict cache's view for this scan, or null without a cache. */
  readonly verdicts: VerdictSession | null;
  /** Wall clock at the current step's start: before every signature the step takes. */
  private stepStartNs = 0n;

  /** `clock` times `step_ms` and the slices; tests inject a virtual one to reach `deadline`. */
  constructor(
    home: string,
    canonicalCwd: string,
    private readonly probe: AttachmentProbe,
    private readonly clock: Clock = realClock,
    cache: VerdictCache | null = null,
    /** The folder scanned: the sessions folder, or its archive (session.archived). */
    root: string = sessionsDir(home),
  ) {
    this.verdicts = cache ? cache.session() : null;
    this.root = root;
    this.cwd = new CwdMatcher(canonicalCwd);
    this.attachment = JSON.stringify(probe());
    this.folder = this.folderState();
    if (this.folder !== null) this.first = new DirectoryPass(this.root);
  }

  /** One bounded step: advances until a step or page bound, or completion. */
  async step(signal: AbortSignal): Promise<StepOutcome> {
    this.stepStartNs = VerdictSession.now();
    this.assertConsistent();
    const page = new PageBuilder<SessionEntry>(STEP_ENVELOPE_BYTES, {
      entries: DISCOVER_EXTENSION.page_entries,
      bytes: DISCOVER_EXTENSION.page_bytes,
    });
    const budget: StepBudget = {
      entries: DISCOVER_EXTENSION.step_directory_entries,
      lines: DISCOVER_EXTENSION.step_lines,
      bytes: DISCOVER_EXTENSION.step_bytes,
      deadline: this.clock() + DISCOVER_EXTENSION.step_ms,
    };
    // The cache's writes wait while the step reads (they competed with it for the cores).
    const release = this.verdicts?.hold();
    let progress: DiscoveryProgress | undefined;
    try {
      progress = await this.work(page, budget, new Slicer(signal, this.clock));
    } finally {
      release?.(progress === "complete");
    }
    this.assertConsistent();
    return { sessions: page.items, counts: { ...this.counts }, progress };
  }

  /** Releases the iterators and the held history. The scan cannot be used afterwards. */
  close(): void {
    this.first?.close();
    this.second?.close();
    this.held?.close();
    this.first = this.second = this.held = null;
    this.pending = null;
  }

  private async work(
    page: PageBuilder<SessionEntry>,
    budget: StepBudget,
    slicer: Slicer,
  ): Promise<DiscoveryProgress> {
    const pending = this.pending;
    if (pending && withPageBytesError(() => page.tryAdd(pending))) this.pending = null;
    for (;;) {
      // Awaited only when due: an await per directory entry costs a promise and a microtask.
      if (slicer.due(ENTRY_WORK)) await slicer.yieldNow();
      if (slicer.now >= budget.deadline) return "deadline";
      if (this.held) {
        const stopped = await this.readHeld(page, budget, slicer);
        if (stopped) return stopped;
      } else if (this.phase === "enumerate") {
        if (budget.entries <= 0) return "directory_work";
        const entry = this.first ? this.first.next() : null;
        if (entry === null) this.beginValidation();
        else {
          budget.entries -= 1;
          const cached = this.enumerate(entry);
          if (cached && !withPageBytesError(() => page.tryAdd(cached))) {
            this.pending = cached;
            return page.full ? "page_entries" : "page_bytes";
          }
          if (page.full) return "page_entries";
        }
      } else {
        if (budget.entries <= 0) return "inventory_validation";
        const entry = this.second ? this.second.next() : null;
        if (entry === null) return this.finishValidation();
        budget.entries -= 1;
      }
    }
  }

  /** Reads the held history; returns a progress value when the step must stop. */
  private async readHeld(
    page: PageBuilder<SessionEntry>,
    budget: StepBudget,
    slicer: Slicer,
  ): Promise<DiscoveryProgress | null> {
    const held = this.held as HeldHistory;
    let stop: Awaited<ReturnType<HeldHistory["scan"]["advance"]>>;
    try {
      stop = await held.scan.advance(budget, slicer);
    } catch (error) {
      if (error instanceof ProtocolError || !errorCode(error)) throw error;
      // An I/O error mid-read: the history is unreadable, counted as invalid.
      this.releaseHeld();
      this.counts.invalid += 1;
      return budget.entries <= 0 ? "history_work" : null;
    }
    if (stop === "lines") return "record_work";
    if (stop === "bytes") return "byte_work";
    if (stop === "deadline") return "deadline";
    const entry = this.finishHeld(held);
    if (entry && !withPageBytesError(() => page.tryAdd(entry))) {
      this.pending = entry;
      return page.full ? "page_entries" : "page_bytes";
    }
    // `history_work`: this step's directory allowance ended on a history it read to its end.
    if (budget.entries <= 0) return "history_work";
    if (page.full) return "page_entries";
    return null;
  }

  /** The verdict of a fully read held history: its entry, or null (counted or excluded). */
  private finishHeld(held: HeldHistory): SessionEntry | null {
    held.assertUnchanged();
    this.releaseHeld();
    // Read whole and unchanged from enumeration to end: a verdict of exactly these bytes.
    this.verdicts?.remember(held.id, held.enumerated, held.scan, held.checkedAtNs);
    const { verdict, summary } = held.scan;
    if (verdict === "eligible") return this.conclude(held.id, { kind: "eligible", summary });
    if (verdict === "over_limit" || verdict === "invalid")
      return this.conclude(held.id, { kind: verdict });
    return null;
  }

  /** A decided history's entry (null when excluded or counted), from a read or the cache. */
  private conclude(id: string, outcome: CachedOutcome): SessionEntry | null {
    if (outcome.kind === "over_limit") throw new ProtocolError("discovery_record_bytes");
    if (outcome.kind === "invalid") this.counts.invalid += 1;
    if (outcome.kind !== "eligible") return null;
    if (outcome.summary.oversize) throw new ProtocolError("discovery_page_bytes");
    const entry = outcome.summary.entry(id, isBusy(this.root, id));
    if (entry.cwd === "unverified") this.counts.unverified += 1;
    return entry;
  }

  private releaseHeld(): void {
    this.held?.close();
    this.held = null;
  }

  /**
   * Classifies one enumerated entry; a safe regular primary becomes the held history, unless
   * the verdict cache holds its verdict: then its entry (or null) comes at once, unopened.
   */
  private enumerate(entry: PassEntry): SessionEntry | null {
    if (entry.kind.kind !== "primary") return null;
    if (!entry.stats.isFile()) {
      this.counts.invalid += 1;
      return null;
    }
    const id = entry.kind.id;
    const cached = this.verdicts?.lookup(id, entry.stats, this.cwd);
    if (cached) return this.conclude(id, cached);
    const opened = openPrimary(this.root, entry.name as string, entry.stats);
    if (!opened.ok) {
      if (opened.problem === "missing") throw new ProtocolError("stale_revision");
      this.counts.invalid += 1;
      return null;
    }
    const { fd, stats } = opened;
    this.held = new HeldHistory(id, fd, entry.stats, this.cwd, this.buffer, this.stepStartNs);
    // A file changed between enumeration and open would be read in another state than signed.
    if (!sameFile(stats, entry.stats)) throw new ProtocolError("stale_revision");
    return null;
  }

  private beginValidation(): void {
    this.phase = "validate";
    if (this.folder !== null) this.second = new DirectoryPass(this.root);
  }

  /** The second pass ended: the inventory must be exactly what the first pass saw. */
  private finishValidation(): DiscoveryProgress {
    const same =
      this.first === null || this.second === null
        ? this.first === this.second
        : this.first.signature.equals(this.second.signature);
    if (!same) throw new ProtocolError("stale_revision");
    this.assertConsistent();
    return "complete";
  }

  /** Folder identity, permissions and change time; the attachment; the held history. */
  private assertConsistent(): void {
    if (this.folderState() !== this.folder) throw new ProtocolError("stale_revision");
    if (JSON.stringify(this.probe()) !== this.attachment) throw new ProtocolError("stale_revision");
    this.held?.assertUnchanged();
  }

  /** The folder's signature, or null when it does not exist (an empty store). */
  private folderState(): string | null {
    if (inspectRoot(this.root) === "missing") return null;
    let stats: BigIntStats;
    try {
      stats = lstatSync(this.root, { bigint: true });
    } catch {
      throw new StoreUnavailable();
    }
    return folderSignature(stats);
  }
}

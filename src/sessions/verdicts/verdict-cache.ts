import type { BigIntStats } from "node:fs";
import { primaryName } from "../../store/layout.js";
import type { CwdRule, HistoryScan } from "../history/history-scan.js";
import { SummaryBuilder } from "../history/summary.js";
import {
  encodeVerdict,
  readVerdict,
  sameSignature,
  signatureFields,
  VERDICT_FILE_BYTES,
  type VerdictRecord,
} from "./verdict-file.js";
import { inspectVerdictPlace, type VerdictPlace, verdictPlace } from "./verdict-root.js";
import { VerdictWriter } from "./verdict-writer.js";

/**
 * The verdict cache of the listings (docs/extensions.md, "The verdict cache"): a history whose
 * full signature (device, inode, mode, length, mtime and ctime in nanoseconds, name) equals the
 * one a full read recorded takes that read's verdict without being opened.
 *
 * What is kept is workspace-independent: where the in-order read stopped (end of file, an
 * invalid record, an over-limit record, or a cwd that did not match the workspace of the child
 * that read it) and the distinct cwds of the valid records before that point. A lookup applies
 * the current child's cwd rule to those cwds, exactly as a read of the same bytes would, in the
 * same order of consequences: a cwd that does not match excludes; otherwise the stored end
 * decides, except that a read that stopped at another workspace's cwd says nothing about the
 * rest of the file here: a miss.
 */
export type CachedOutcome =
  | { kind: "eligible"; summary: SummaryBuilder }
  | { kind: "mismatch" }
  | { kind: "invalid" }
  | { kind: "over_limit" };

/**
 * A verdict is written only for a history whose ctime is this much older than a clock reading
 * taken before the history's signature was read. Why: a file's times come from a coarse clock
 * (a jiffy; whole seconds or two on some filesystems), so a change made within the same tick
 * as the previous one, after our stat, could leave the signature as it was (the "racy clean"
 * problem of git's index). Any change after our stat gets a ctime at least that stat's time
 * minus a tick, never the older one recorded.
 */
export const VERDICT_MARGIN_NS = 2_000_000_000n;

/**
 * Histories shorter than this are read, never looked up: reading one is a single 8 KiB read,
 * which costs what a lookup costs (measured: a 4 KiB history took 15% longer through the cache
 * than read; a 16 KiB one 20% less).
 */
export const VERDICT_MIN_BYTES = 8192n;

export interface VerdictOptions {
  /** False: no lookup, no write (MC_AGENT_VERDICTS=off). */
  enabled: boolean;
  /** The ctime margin above (a test build may set it, e.g. to 0: server/test-seam.ts). */
  marginNs: bigint;
  /** A test build waits for each listing's cache writes before answering. */
  sync: boolean;
  /** VERDICT_MIN_BYTES (a test build may lower it, so that small kit histories use the cache). */
  minBytes: bigint;
  /** How long writes wait after a listing's last step without its completion (QUIET_MS). */
  quietMs?: number;
}

export class VerdictCache {
  readonly writer: VerdictWriter;
  private readonly buffer = Buffer.allocUnsafe(VERDICT_FILE_BYTES + 1);
  /** Verdicts taken from the cache (for tests and the bench). */
  hits = 0;

  constructor(
    private readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    readonly options: VerdictOptions,
  ) {
    this.writer = new VerdictWriter(home, options.quietMs);
  }

  /**
   * One operation's view: the place (outside MC_HOME: verdict-root.ts) is resolved and
   * checked once, then every lookup is a single read.
   */
  session(): VerdictSession {
    const place = this.options.enabled ? verdictPlace(this.env, this.home) : null;
    const state = place === null ? "unsafe" : inspectVerdictPlace(place);
    return new VerdictSession(this, place, state === "ready", state !== "unsafe");
  }

  /**
   * This home's cache folder for the search index (sessions/search/), or null: the cache is
   * off, or its place is unsafe. The index lives beside the verdicts and obeys the same rules.
   */
  folder(): string | null {
    const place = this.options.enabled ? verdictPlace(this.env, this.home) : null;
    if (place === null || inspectVerdictPlace(place) === "unsafe") return null;
    return place.folder;
  }

  read(place: VerdictPlace, id: string): VerdictRecord | null {
    return readVerdict(place.folder, id, this.buffer);
  }
}

export class VerdictSession {
  constructor(
    private readonly cache: VerdictCache,
    private readonly place: VerdictPlace | null,
    private readonly readable: boolean,
    private readonly writable: boolean,
  ) {}

  /** Wall-clock nanoseconds, taken before the signatures that `remember` will be given. */
  static now(): bigint {
    return BigInt(Date.now()) * 1_000_000n;
  }

  /** The cached outcome for the history `id` as `stats` shows it, or null: read it. */
  lookup(id: string, stats: BigIntStats, cwd: CwdRule): CachedOutcome | null {
    if (!this.readable || this.place === null || stats.size < this.cache.options.minBytes)
      return null;
    const record = this.cache.read(this.place, id);
    if (record === null || !sameSignature(record, primaryName(id), stats)) return null;
    const outcome = outcomeOf(record, cwd);
    if (outcome !== null) this.cache.hits += 1;
    return outcome;
  }

  /**
   * Queues the verdict of a finished full read of `id`, whose signature was `stats` before and
   * after the read, the signature having been taken after `checkedAtNs`.
   */
  remember(id: string, stats: BigIntStats, scan: HistoryScan, checkedAtNs: bigint): void {
    const end = scan.verdict;
    if (!this.writable || this.place === null || end === null || scan.cwds.overflow) return;
    if (stats.size < this.cache.options.minBytes) return;
    if (stats.ctimeNs >= checkedAtNs - this.cache.options.marginNs) return;
    const record: VerdictRecord = {
      format: "mc-session-verdict",
      version: 1,
      name: primaryName(id),
      ...signatureFields(stats),
      end,
      cwds: scan.cwds.values,
      summary: end === "eligible" ? scan.summary.state() : null,
    };
    const bytes = encodeVerdict(record);
    if (bytes !== null) this.cache.writer.enqueue(this.place, id, bytes);
  }

  /**
   * A listing step reads until the returned release: the writer starts no write meanwhile
   * (verdict-writer.ts). Release with `true` once the listing is complete.
   */
  hold(): (completed?: boolean) => void {
    return this.writable ? this.cache.writer.hold() : () => {};
  }

  /** After each answered step: a test build waits for the cache writes it queued. */
  async settle(): Promise<void> {
    if (!this.cache.options.sync) return;
    await this.cache.writer.idle();
    await this.cache.writer.pruning;
  }

  /** After a completed listing: the child's one prune, then `settle`. */
  async finish(): Promise<void> {
    if (this.place !== null && this.writable) this.cache.writer.pruneOnce(this.place);
    await this.settle();
  }
}

function outcomeOf(record: VerdictRecord, cwd: CwdRule): CachedOutcome | null {
  for (const recorded of record.cwds) if (!cwd.matches(recorded)) return { kind: "mismatch" };
  if (record.end === "mismatch") return null;
  if (record.end === "eligible" && record.summary !== null)
    return { kind: "eligible", summary: SummaryBuilder.restore(record.summary) };
  if (record.end === "invalid") return { kind: "invalid" };
  if (record.end === "over_limit") return { kind: "over_limit" };
  return null;
}

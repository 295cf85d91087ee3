import { lstat, opendir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "./cache-file.js";
import { sessionsDir } from "./layout.js";
import { ensureHomeMarker, pruneGoneHomes } from "./verdict-homes.js";
import { createVerdictPlace, inspectVerdictPlace, type VerdictPlace } from "./verdict-root.js";

/**
 * Writes verdict files in the background, so that a listing never waits for the cache and a
 * failed write costs only speed (docs/store.md, "The verdict cache"). Each write is a temp file
 * `.<id>.json.<pid>.<12 hex>.tmp` in the cache folder, then a rename over `<id>.json`: a reader
 * sees the old file or the new one. No fsync: after a crash a verdict file may be empty or torn,
 * which its digest turns into a miss (a cache needs no durability, only atomic visibility).
 *
 * Bounded: at most QUEUE_BYTES of verdicts wait (a verdict is a few hundred bytes, so about
 * 10,000 of them; more are dropped, costing a read next time), at most four writes run at once
 * (the thread pool's size: they run beside the scan), and after FAILURE_LIMIT failed writes the writer stops trying for the
 * rest of the child's life (a read-only cache folder costs a few failed calls, not one per
 * history).
 */
const QUEUE_BYTES = 4 * 1024 * 1024;
const PARALLEL = 4;
const FAILURE_LIMIT = 8;

export class VerdictWriter {
  private readonly queue: { place: VerdictPlace; id: string; bytes: Buffer }[] = [];
  private running = 0;
  private queuedBytes = 0;
  private failures = 0;
  /** The folder last found ready (a later operation may resolve another: a replaced home). */
  private readyFolder: string | null = null;
  private pruned = false;
  private waiters: (() => void)[] = [];
  /** Writes that were committed (for tests and the bench's reports). */
  written = 0;

  constructor(private readonly home: string) {}

  /** Queues one verdict file; dropped when the queue is full or the writer gave up. */
  enqueue(place: VerdictPlace, id: string, bytes: Buffer): void {
    if (this.failures >= FAILURE_LIMIT || this.queuedBytes + bytes.length > QUEUE_BYTES) return;
    this.queue.push({ place, id, bytes });
    this.queuedBytes += bytes.length;
    this.pump();
  }

  /** Resolves once nothing is queued or being written. */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Once per child, after a completed listing: removes the verdict files whose history is gone
   * and the temp files of writers that no longer run, then the folders of homes that are gone.
   * In the background, one entry at a time.
   */
  pruneOnce(place: VerdictPlace): void {
    if (this.pruned) return;
    this.pruned = true;
    this.pruning = pruneVerdicts(place, this.home)
      .then(() => pruneGoneHomes(place))
      .then(() => {});
  }

  /** The running prune (tests and test builds wait for it). */
  pruning: Promise<void> = Promise.resolve();

  private pump(): void {
    while (this.running < PARALLEL && this.queue.length > 0) {
      const next = this.queue.shift() as { place: VerdictPlace; id: string; bytes: Buffer };
      this.queuedBytes -= next.bytes.length;
      this.running += 1;
      void this.write(next.place, next.id, next.bytes).finally(() => {
        this.running -= 1;
        this.pump();
        if (this.running === 0 && this.queue.length === 0) {
          const waiters = this.waiters;
          this.waiters = [];
          for (const resolve of waiters) resolve();
        }
      });
    }
  }

  private async write(place: VerdictPlace, id: string, bytes: Buffer): Promise<void> {
    try {
      await this.ensureFolder(place);
      await writeCacheFile(place.folder, `${id}.json`, bytes);
      this.written += 1;
    } catch {
      this.failures += 1;
    }
  }

  private async ensureFolder(place: VerdictPlace): Promise<void> {
    if (this.readyFolder === place.folder) return;
    if (!(await createVerdictPlace(place))) throw new Error("unsafe cache folder");
    await ensureHomeMarker(place);
    this.readyFolder = place.folder;
  }
}

const VERDICT_NAME = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.json$/;
const TEMP_NAME = /^\.[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.json\.(\d{1,7})\.[0-9a-f]{12}\.tmp$/;

/**
 * Within this MC_HOME's cache folder only (never MC_HOME, never another home's folder): removes
 * `<id>.json` whose `sessions/<id>.jsonl` does not exist (lstat ENOENT), and temp files
 * whose writer pid is not a live process. Anything else is left alone. A history created again
 * between the check and the unlink loses only its verdict (one read). Best effort, never throws.
 */
export async function pruneVerdicts(place: VerdictPlace, home: string): Promise<number> {
  if (inspectVerdictPlace(place) !== "ready") return 0;
  const folder = place.folder;
  const sessions = sessionsDir(home);
  let removed = 0;
  try {
    for await (const entry of await opendir(folder)) {
      const name = entry.name;
      const verdict = VERDICT_NAME.exec(name);
      const temp = verdict ? null : TEMP_NAME.exec(name);
      let stale = false;
      if (verdict) stale = await missing(join(sessions, `${verdict[1]}.jsonl`));
      else if (temp) stale = Number(temp[1]) !== process.pid && !processExists(Number(temp[1]));
      if (
        stale &&
        (await unlink(join(folder, name)).then(
          () => true,
          () => false,
        ))
      )
        removed += 1;
    }
  } catch {
    // An unreadable folder: the stale entries stay until a later prune.
  }
  return removed;
}

async function missing(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT";
  }
}

function processExists(pid: number): boolean {
  if (pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== "ESRCH";
  }
}

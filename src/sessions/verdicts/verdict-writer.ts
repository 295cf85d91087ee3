import { lstat, opendir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "../../store/cache-file.js";
import { sessionsDir } from "../../store/layout.js";
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
 * 10,000 of them; more are dropped, costing a read next time), and after FAILURE_LIMIT failed
 * writes the writer stops trying for the rest of the child's life (a read-only cache folder
 * costs a few failed calls, not one per history).
 *
 * Out of the listing's way: a file's creation is kernel work on a thread-pool thread, from 0.1
 * to over 1 ms of CPU each on the development machine (docs/benchmarks.md, "Discovery against
 * older builds"), and four at once beside a first listing took both cores of a 2-core machine
 * from the scan and from the frontend waiting for its `status` answers. So writes run one at a
 * time, and none starts while a listing reads (`hold`): the queue is written once the listing
 * completed, or once no listing step has run for QUIET_MS (a frontend that stopped following
 * cursors). A write already running when a step starts finishes beside it.
 */
const QUEUE_BYTES = 4 * 1024 * 1024;
const PARALLEL = 1;
const FAILURE_LIMIT = 8;
/** How long after a listing's last step, without its completion, the queue waits. */
export const QUIET_MS = 100;

export class VerdictWriter {
  private readonly queue: { place: VerdictPlace; id: string; bytes: Buffer }[] = [];
  private running = 0;
  private queuedBytes = 0;
  private failures = 0;
  /** The folder last found ready (a later operation may resolve another: a replaced home). */
  private readyFolder: string | null = null;
  private pruned = false;
  private waiters: (() => void)[] = [];
  /** Listing steps reading now: no write starts while there is one. */
  private holds = 0;
  /** Set after the last hold ends, until QUIET_MS later (no write starts meanwhile either). */
  private quiet: NodeJS.Timeout | null = null;
  /** Set at shutdown: nothing is queued or written any more. */
  private stopped = false;
  /** Writes that were committed (for tests and the bench's reports). */
  written = 0;

  constructor(
    private readonly home: string,
    private readonly quietMs = QUIET_MS,
  ) {}

  /**
   * A listing step reads from now until the returned release is called (once; later calls do
   * nothing). `completed`: the listing is done, so the queue is written at once, not after
   * QUIET_MS.
   */
  hold(): (completed?: boolean) => void {
    this.holds += 1;
    this.stopQuiet();
    let released = false;
    return (completed = false) => {
      if (released) return;
      released = true;
      this.holds -= 1;
      if (this.holds > 0) return;
      if (completed) this.pump();
      else this.startQuiet();
    };
  }

  /**
   * The child is shutting down: the queue is dropped (those histories are read by the next
   * listing) and nothing more is written, so that no write keeps the exit waiting (server/
   * exit.ts waits for the thread pool). Resolves once the write running now, if any, ended.
   */
  stop(): Promise<void> {
    this.stopped = true;
    this.stopQuiet();
    this.queue.length = 0;
    this.queuedBytes = 0;
    return this.idle();
  }

  /** Queues one verdict file; dropped when the queue is full or the writer gave up. */
  enqueue(place: VerdictPlace, id: string, bytes: Buffer): void {
    if (this.stopped) return;
    if (this.failures >= FAILURE_LIMIT || this.queuedBytes + bytes.length > QUEUE_BYTES) return;
    this.queue.push({ place, id, bytes });
    this.queuedBytes += bytes.length;
    this.pump();
  }

  /**
   * Resolves once nothing is queued or being written. Whoever waits wants the writes (a test
   * build after each step): the queue is written from now on, a hold or not.
   */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.stopQuiet();
    this.pump(true);
    return done;
  }

  /**
   * Once per child, after a completed listing: removes the verdict files whose history is gone
   * and the temp files of writers that no longer run, then the folders of homes that are gone.
   * In the background, one entry at a time.
   */
  pruneOnce(place: VerdictPlace): void {
    if (this.pruned) return;
    this.pruned = true;
    this.pruning = pruneVerdicts(place, this.home, () => this.stopped)
      .then(() => pruneGoneHomes(place))
      .then(() => {});
  }

  /** The running prune (tests and test builds wait for it). */
  pruning: Promise<void> = Promise.resolve();

  /** Starts the next writes, unless a listing reads or just read (`force`: someone waits). */
  private pump(force = this.waiters.length > 0): void {
    if (!force && (this.holds > 0 || this.quiet !== null)) return;
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

  private startQuiet(): void {
    this.stopQuiet();
    this.quiet = setTimeout(() => {
      this.quiet = null;
      this.pump();
    }, this.quietMs);
    // Never what keeps the child alive: unwritten verdicts cost only a read next time.
    this.quiet.unref();
  }

  private stopQuiet(): void {
    if (this.quiet === null) return;
    clearTimeout(this.quiet);
    this.quiet = null;
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
 * between the check and the unlink loses only its verdict (one read). Best effort, never throws;
 * stops early once `stopped` says so (a shutdown).
 */
async function pruneVerdicts(
  place: VerdictPlace,
  home: string,
  stopped: () => boolean = () => false,
): Promise<number> {
  if (inspectVerdictPlace(place) !== "ready") return 0;
  const folder = place.folder;
  const sessions = sessionsDir(home);
  let removed = 0;
  try {
    for await (const entry of await opendir(folder)) {
      // The child is shutting down: the rest waits for a later prune.
      if (stopped()) break;
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

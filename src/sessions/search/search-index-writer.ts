import { lstat, mkdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "../../store/cache-file.js";
import { fileSignature } from "../../store/inventory.js";

/**
 * Writes search-index entries (search-index.ts) in the background, so that a search never waits
 * for its index: as the verdict writer (verdicts/verdict-writer.ts) does, and for the same
 * reason (a file's creation is kernel CPU on a thread-pool thread, which on a 2-core machine a
 * running search and its frontend would lose), one write at a time and none while a search step
 * reads: the queue is written once the search completed, or once no step has run for QUIET_MS.
 *
 * An entry is of one history as it was read (`signature`). After its rename the history is
 * looked at again, and an entry whose history is gone or changed is removed: so a queued entry
 * never outlives a session deleted meanwhile (session.delete forgets the entry after its commit,
 * and either it sees the written entry or the writer sees the history gone).
 *
 * Bounded: QUEUE_BYTES of entries wait at most (more are dropped: a read next time); after
 * FAILURE_LIMIT failed writes it stops trying for the child's life; at shutdown the queue is
 * dropped.
 */
const QUEUE_BYTES = 64 * 1024 * 1024;
const FAILURE_LIMIT = 8;
export const QUIET_MS = 100;

interface Job {
  folder: string;
  id: string;
  body: string;
  history: string;
  signature: string;
}

export class SearchIndexWriter {
  private readonly queue: Job[] = [];
  private queuedBytes = 0;
  private running = false;
  private holds = 0;
  private quiet: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];
  private readonly madeFolders = new Set<string>();
  /** Entries written and kept (for tests and the bench). */
  written = 0;

  /** A search step reads until the release; `completed`: the search is done, write now. */
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

  /** Queues the entry of the history at `history`, read as `signature`. */
  enqueue(folder: string, id: string, body: string, history: string, signature: string): void {
    if (this.stopped || this.failures >= FAILURE_LIMIT) return;
    if (this.queuedBytes + body.length > QUEUE_BYTES) return;
    this.queue.push({ folder, id, body, history, signature });
    this.queuedBytes += body.length;
    this.pump();
  }

  /** Resolves once nothing is queued or being written (the queue is written from now on). */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.waiters.push(resolve));
    this.stopQuiet();
    this.pump(true);
    return done;
  }

  /** Shutdown: the queue is dropped; resolves once the write running now ended. */
  stop(): Promise<void> {
    this.stopped = true;
    this.stopQuiet();
    this.queue.length = 0;
    this.queuedBytes = 0;
    return this.idle();
  }

  private pump(force = this.waiters.length > 0): void {
    if (this.running || this.queue.length === 0) return;
    if (!force && (this.holds > 0 || this.quiet !== null)) return;
    const job = this.queue.shift() as Job;
    this.queuedBytes -= job.body.length;
    this.running = true;
    void this.write(job).finally(() => {
      this.running = false;
      this.pump();
      if (!this.running && this.queue.length === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const resolve of waiters) resolve();
      }
    });
  }

  private async write(job: Job): Promise<void> {
    try {
      if (!(await unchanged(job))) return;
      if (!this.madeFolders.has(job.folder)) {
        await mkdir(job.folder, { recursive: true, mode: 0o700 });
        this.madeFolders.add(job.folder);
      }
      await writeCacheFile(job.folder, `${job.id}.json`, job.body);
      if (await unchanged(job)) this.written += 1;
      else await unlink(join(job.folder, `${job.id}.json`)).catch(() => {});
    } catch {
      this.failures += 1;
    }
  }

  private startQuiet(): void {
    this.stopQuiet();
    this.quiet = setTimeout(() => {
      this.quiet = null;
      this.pump();
    }, QUIET_MS);
    // Never what keeps the child alive: an unwritten entry costs only a read next time.
    this.quiet.unref();
  }

  private stopQuiet(): void {
    if (this.quiet === null) return;
    clearTimeout(this.quiet);
    this.quiet = null;
  }
}

/** The history is still the one the entry was made of. */
async function unchanged(job: Job): Promise<boolean> {
  try {
    return fileSignature(await lstat(job.history, { bigint: true })) === job.signature;
  } catch {
    return false;
  }
}

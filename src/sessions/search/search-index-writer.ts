import { lstat, mkdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "../../store/cache-file.js";
import { fileSignature } from "../../store/inventory.js";

/**
 * Writes search-index entries (search-index.ts) in the background, so that a search never waits
 * for its index: one write at a time, on the thread pool, and while a search step reads only
 * when a quarter of the queue's bound waits (a file's creation is kernel CPU on a pool thread,
 * which on a 2-core machine the running step and its frontend would lose; verdicts/
 * verdict-writer.ts does the same for verdicts): entries are written between a search's steps
 * and after its last, and beside its steps once many wait.
 *
 * An entry is of one history as it was read (`signature`). After its rename the history is
 * looked at again, and an entry whose history is gone or changed is removed: so a queued entry
 * never outlives a session deleted meanwhile (session.delete forgets the entry after its commit,
 * and either it sees the written entry or the writer sees the history gone).
 *
 * Bounded without losing entries: once `queueBytes` of entries wait (`full`), the search ends
 * its step early and its next step first waits (`room`) until the queue is half written, so a
 * first search of a large store leaves the whole index and at most `queueBytes` in memory.
 * After FAILURE_LIMIT failed writes the writer stops trying (and drops its queue) for the
 * child's life; at shutdown the queue is dropped.
 */
export const QUEUE_BYTES = 64 * 1024 * 1024;
const FAILURE_LIMIT = 8;

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
  private failures = 0;
  private stopped = false;
  /** Waiting for an empty queue (idle) or for room (below half of queueBytes). */
  private idleWaiters: (() => void)[] = [];
  private roomWaiters: (() => void)[] = [];
  private readonly madeFolders = new Set<string>();
  /** Entries written and kept (for tests and the bench). */
  written = 0;

  constructor(private readonly queueBytes = QUEUE_BYTES) {}

  /** A search step reads until the returned release (once; later calls do nothing). */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.pump();
    };
  }

  /** So many entries wait that a search must let them be written before it reads on. */
  get full(): boolean {
    return this.queuedBytes >= this.queueBytes;
  }

  /** Resolves once the queue is below half its bound (writing meanwhile, held or not). */
  room(): Promise<void> {
    if (this.queuedBytes < this.queueBytes / 2) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    this.pump(true);
    return done;
  }

  /** Queues the entry of the history at `history`, read as `signature`. */
  enqueue(folder: string, id: string, body: string, history: string, signature: string): void {
    if (this.stopped || this.failures >= FAILURE_LIMIT) return;
    this.queue.push({ folder, id, body, history, signature });
    this.queuedBytes += body.length;
    this.pump();
  }

  /** Resolves once nothing is queued or being written (the queue is written from now on). */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.pump(true);
    return done;
  }

  /** Shutdown: the queue is dropped; resolves once the write running now ended. */
  stop(): Promise<void> {
    this.stopped = true;
    this.drop();
    return this.idle();
  }

  private drop(): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.settle();
  }

  private pump(force = this.idleWaiters.length + this.roomWaiters.length > 0): void {
    if (this.running || this.queue.length === 0) return;
    // While a step reads, only a queue past a quarter of its bound is written (else the first
    // search of a large store would stall on it at the bound).
    if (!force && this.holds > 0 && this.queuedBytes < this.queueBytes / 4) return;
    const job = this.queue.shift() as Job;
    this.queuedBytes -= job.body.length;
    this.running = true;
    void this.write(job).finally(() => {
      this.running = false;
      if (this.failures >= FAILURE_LIMIT) this.drop();
      this.settle();
      this.pump();
    });
  }

  /** Wakes whoever waits for what is now true. */
  private settle(): void {
    if (this.queuedBytes < this.queueBytes / 2) {
      const waiters = this.roomWaiters;
      this.roomWaiters = [];
      for (const resolve of waiters) resolve();
    }
    if (!this.running && this.queue.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async write(job: Job): Promise<void> {
    try {
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
}

/** The history is still the one the entry was made of. */
async function unchanged(job: Job): Promise<boolean> {
  try {
    return fileSignature(await lstat(job.history, { bigint: true })) === job.signature;
  } catch {
    return false;
  }
}

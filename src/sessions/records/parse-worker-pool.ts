import type { Worker } from "node:worker_threads";
import type { RecordFacts, RecordReadOptions } from "./facts.js";

/**
 * The one shared worker thread that parses large records (parse-worker.ts), so that a
 * multi-megabyte JSON.parse (tens of milliseconds, see docs/extensions.md) never stalls the
 * protocol loop. It is created on first need and keeps the process alive only while it holds a
 * request. A worker's facts never carry the parsed value (read-facts.ts says why).
 */
export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  keepEventBytes: number;
  wantUserLine: boolean;
}

/** The facts, or null when parsing threw (that request fails alone; the thread lives on). */
export interface ParseReply {
  id: number;
  facts: RecordFacts | null;
}

interface Pending {
  resolve: (facts: RecordFacts) => void;
  reject: (error: Error) => void;
}

/**
 * One worker thread and the requests it holds. Its death (an error, an exit) fails exactly
 * those requests, once, and nothing else: a thread that died is never used again, and its
 * late events cannot reach the thread that replaced it.
 */
class ParseThread {
  private readonly thread: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(script: URL) {
    // node:worker_threads at the first thread, not with this module: a start that parses no big
    // history does not load it (3-4 ms; docs/acp.md, "Start-up").
    this.thread = new (process.getBuiltinModule("node:worker_threads").Worker)(script);
    this.thread.on("message", (reply: ParseReply) => this.settle(reply));
    this.thread.on("error", () => this.die());
    this.thread.on("exit", () => this.die());
    // After the listeners (adding a message listener refs the thread's port again).
    this.thread.unref();
  }

  parse(bytes: Uint8Array, options: RecordReadOptions): Promise<RecordFacts> {
    const id = this.nextId++;
    // A private copy whose memory moves to the worker instead of being cloned.
    const copy = new Uint8Array(bytes);
    const { keepEventBytes, wantUserLine } = options;
    const request: ParseRequest = { id, bytes: copy, keepEventBytes, wantUserLine };
    return new Promise((resolve, reject) => {
      // Held only while it holds a request: an idle parser never keeps the process alive.
      if (this.pending.size === 0) this.thread.ref();
      this.pending.set(id, { resolve, reject });
      this.thread.postMessage(request, [copy.buffer]);
    });
  }

  private settle(reply: ParseReply): void {
    const waiter = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.thread.unref();
    if (reply.facts) waiter?.resolve(reply.facts);
    else waiter?.reject(new Error("the record parser failed on a record"));
  }

  private die(): void {
    if (this.dead) return;
    this.dead = true;
    const held = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of held) waiter.reject(new Error("the record parser thread died"));
    void this.thread.terminate();
  }
}

/** The shared thread, replaced on first need after a death. */
export class RecordParserPool {
  private current: ParseThread | null = null;

  constructor(private readonly script: URL) {}

  parse(bytes: Uint8Array, options: RecordReadOptions): Promise<RecordFacts> {
    if (this.current === null || this.current.dead) this.current = new ParseThread(this.script);
    return this.current.parse(bytes, options);
  }
}

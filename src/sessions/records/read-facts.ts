import { Worker } from "node:worker_threads";
import { factsOf, type RecordFacts } from "./parse-facts.js";
import type { ParseReply, ParseRequest } from "./parse-worker.js";
import { recordFacts, SCAN_ENABLED, scanFacts } from "./scan-facts.js";

/**
 * Parses a record on the calling thread when it is small (a few hundred microseconds at most),
 * or on one shared worker thread when it is large: JSON.parse of a 7 MiB record takes 10-45 ms,
 * far longer than the loop may be held. The worker is created on first need and keeps the
 * process alive only while it holds a request. Both paths run the same `recordFacts` (the byte
 * scanner, else JSON.parse: record-scan.ts), so a record's verdict never depends on its size or
 * on which reader asks.
 */
export const OFF_THREAD_BYTES = 256 * 1024;
/**
 * A record that opens more arrays and objects than this also goes to the worker, whatever its
 * size: JSON.parse pays about 100 ns a nesting level (a 256 KiB record nested 131,000 deep holds
 * the loop 11-17 ms), where flat text of the same size takes a fraction of a millisecond.
 */
export const LOOP_OPENERS = 10_000;

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
    this.thread = new Worker(script);
    this.thread.on("message", (reply: ParseReply) => this.settle(reply));
    this.thread.on("error", () => this.die());
    this.thread.on("exit", () => this.die());
    // After the listeners (adding a message listener refs the thread's port again).
    this.thread.unref();
  }

  parse(bytes: Uint8Array, keepEventBytes: number, wantUserLine: boolean): Promise<RecordFacts> {
    const id = this.nextId++;
    // A private copy whose memory moves to the worker instead of being cloned.
    const copy = new Uint8Array(bytes);
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

  parse(bytes: Uint8Array, keepEventBytes: number, wantUserLine: boolean): Promise<RecordFacts> {
    if (this.current === null || this.current.dead) this.current = new ParseThread(this.script);
    return this.current.parse(bytes, keepEventBytes, wantUserLine);
  }
}

const shared = new RecordParserPool(new URL("./parse-worker.js", import.meta.url));

/**
 * The facts of the record `source[from, to)`. `keepValue` keeps the parsed value of a record
 * parsed on the loop only: the worker's value would come back as a structured clone, whose
 * serialisation walks the value (recursively: a deep record could fail it), so a worker's facts
 * carry `value: null` and a caller that needs the value parses that record itself.
 */
export function parseRecord(
  source: Buffer,
  from: number,
  to: number,
  keepEventBytes = 0,
  wantUserLine = true,
  keepValue = false,
): RecordFacts | Promise<RecordFacts> {
  const bytes = to - from;
  if (bytes <= LOOP_OPENERS)
    return recordFacts(source, from, to, keepEventBytes, wantUserLine, keepValue);
  // The scanner's time is linear whatever the nesting (a 256 KiB record in well under a
  // millisecond): it needs no count of openings first, only a record it defers on does.
  if (SCAN_ENABLED && bytes <= OFF_THREAD_BYTES && keepEventBytes === 0 && !keepValue) {
    const scanned = scanFacts(source, from, to, wantUserLine);
    if (scanned !== null) return scanned;
  }
  if (bytes <= OFF_THREAD_BYTES && !opensMoreThan(source.subarray(from, to), LOOP_OPENERS))
    return factsOf(source, from, to, keepEventBytes, wantUserLine, keepValue);
  return shared.parse(source.subarray(from, to), keepEventBytes, wantUserLine);
}

/** Whether the record has more than `limit` `[` and `{` bytes (in strings too: an upper bound). */
function opensMoreThan(record: Buffer, limit: number): boolean {
  let count = 0;
  for (const opener of OPENERS) {
    for (let at = record.indexOf(opener); at !== -1; at = record.indexOf(opener, at + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}

const OPENERS = [0x5b, 0x7b];

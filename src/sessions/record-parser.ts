import { Worker } from "node:worker_threads";
import { factsOf, type RecordFacts } from "./record-facts.js";
import type { ParseRequest } from "./record-worker.js";

/**
 * Parses a record on the calling thread when it is small (a few hundred microseconds at most),
 * or on one shared worker thread when it is large: JSON.parse of a 7 MiB record takes 10-45 ms,
 * far longer than the loop may be held. The worker is created on first need and never keeps
 * the process alive.
 */
export const OFF_THREAD_BYTES = 256 * 1024;

interface Pending {
  resolve: (facts: RecordFacts) => void;
  reject: (error: Error) => void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, Pending>();

/** The facts of the record `source[from, to)`. */
export function parseRecord(
  source: Buffer,
  from: number,
  to: number,
  keepEventBytes = 0,
  wantUserLine = true,
): RecordFacts | Promise<RecordFacts> {
  if (to - from <= OFF_THREAD_BYTES) return factsOf(source, from, to, keepEventBytes, wantUserLine);
  return parseOffThread(source.subarray(from, to), keepEventBytes, wantUserLine);
}

function parseOffThread(
  bytes: Uint8Array,
  keepEventBytes: number,
  wantUserLine: boolean,
): Promise<RecordFacts> {
  const thread = ensureWorker();
  const id = nextId++;
  // A private copy whose memory moves to the worker instead of being cloned.
  const copy = new Uint8Array(bytes);
  const request: ParseRequest = { id, bytes: copy, keepEventBytes, wantUserLine };
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    thread.postMessage(request, [copy.buffer]);
  });
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const thread = new Worker(new URL("./record-worker.js", import.meta.url));
  thread.unref();
  thread.on("message", (message: { id: number; facts: RecordFacts }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    waiter?.resolve(message.facts);
  });
  const fail = () => {
    worker = null;
    for (const waiter of pending.values()) waiter.reject(new Error("record parser failed"));
    pending.clear();
  };
  thread.on("error", fail);
  thread.on("exit", fail);
  worker = thread;
  return thread;
}

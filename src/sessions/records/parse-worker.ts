import { parentPort } from "node:worker_threads";
import type { RecordFacts } from "./parse-facts.js";
import { recordFacts } from "./scan-facts.js";

/**
 * The worker thread that parses large records, so that a multi-megabyte JSON.parse (tens of
 * milliseconds, see docs/extensions.md) never stalls the protocol loop.
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

parentPort?.on("message", (request: ParseRequest) => {
  const reply: ParseReply = { id: request.id, facts: null };
  try {
    reply.facts = recordFacts(
      Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.length),
      0,
      request.bytes.length,
      request.keepEventBytes,
      request.wantUserLine,
    );
  } catch {
    // recordFacts does not throw on any input; should it ever, only this request fails.
  }
  parentPort?.postMessage(reply);
});

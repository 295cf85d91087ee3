import { parentPort } from "node:worker_threads";
import { factsOf } from "./record-facts.js";

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

parentPort?.on("message", (request: ParseRequest) => {
  parentPort?.postMessage({
    id: request.id,
    facts: factsOf(
      Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.length),
      0,
      request.bytes.length,
      request.keepEventBytes,
      request.wantUserLine,
    ),
  });
});

import { parentPort } from "node:worker_threads";
import type { ParseReply, ParseRequest } from "./parse-worker-pool.js";
import { factsOnThisThread } from "./read-facts.js";

/**
 * The worker thread that parses large records (parse-worker-pool.ts sends them): the same
 * `factsOnThisThread` as the loop, so that a record's verdict never depends on its thread.
 */
parentPort?.on("message", (request: ParseRequest) => {
  const reply: ParseReply = { id: request.id, facts: null };
  try {
    reply.facts = factsOnThisThread(
      Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.length),
      0,
      request.bytes.length,
      {
        keepEventBytes: request.keepEventBytes,
        wantUserLine: request.wantUserLine,
        keepValue: false,
      },
    );
  } catch {
    // factsOnThisThread does not throw on any input; should it ever, only this request fails.
  }
  parentPort?.postMessage(reply);
});

import { parentPort, workerData } from "node:worker_threads";
import { fingerprintRange, type RangeAsk, type SplitRequest, scanRange } from "./split-range.js";

/**
 * The worker thread of a split open (split-scan.ts): reads and checks the history's second range
 * (split-range.ts) and answers. The main thread terminates it when it no longer needs it (a
 * refusal in the first range, a cancellation, an open that keeps no point), or keeps it for the
 * first turn's admission, which asks it to fingerprint the range again, and ends it after (or
 * after a while without): nothing it holds outlives that. It writes nothing.
 */
const request = workerData as SplitRequest;
parentPort?.postMessage(scanRange(request));
// Kept by an open whose history the memo keeps a point of: asked to fingerprint its range again
// for the first turn's admission (split-scan.ts, RangeHelper), until the main thread ends it.
const material = request.fingerprint;
if (material)
  parentPort?.on("message", (ask: RangeAsk) =>
    parentPort?.postMessage(fingerprintRange(ask, material)),
  );

import { parentPort, workerData } from "node:worker_threads";
import { type SplitRequest, scanRange } from "./split-range.js";

/**
 * The worker thread of a split open (split-scan.ts): reads and checks the history's second range
 * (split-range.ts), answers once, and is done. The main thread terminates it when it no longer
 * needs the answer (a refusal in the first range, a cancellation), so nothing it holds outlives
 * the open; it writes nothing.
 */
parentPort?.postMessage(scanRange(workerData as SplitRequest));

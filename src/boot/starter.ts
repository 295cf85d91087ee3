import { LIMITS } from "../protocol/constants.js";
import { decodeFrame } from "../protocol/envelope.js";
import { type FrameEvent, FrameSplitter } from "../protocol/framing.js";
import { fastInitializeLine, type InitializeFacts } from "./initialize-fast.js";

/**
 * The first thing `mc-agent stdio` runs: a few kilobytes, no zod, built into
 * dist/child/starter.cjs with the protocol's facts inlined (scripts/bundle.js). It reads the
 * child's first frame and, when it is an `initialize` the hand check of initialize-fast.ts
 * accepts, answers it at once; then it loads the rest of the child and hands it everything it
 * read. A frontend sees its initialize result about a bare Node start after its spawn instead
 * of after the whole child has loaded (docs/local-agent-protocol.md, "Fast start"; docs/benchmarks.md).
 * Anything else (another first frame, an initialize the check leaves to the child, no frame
 * yet when the loop has read what was waiting) is the full child's, as if it had started alone.
 * `MC_AGENT_FAST_START=0` hands over before reading anything.
 */

/** What the full child takes over from the starter (src/server/stdio.ts `serveStdio`). */
export interface Handover {
  /** The splitter, holding the start of a frame not yet whole, if any. */
  splitter: FrameSplitter;
  /** Frames read and not yet handled, in order. */
  events: FrameEvent[];
  /** Whether stdin ended behind `events`. */
  ended: boolean;
  /** The initialize the starter answered, if it did: its ID and the capabilities negotiated. */
  initialized: { id: string; capabilities: string[] } | null;
  /** Whether stdout failed (EPIPE) or closed under the starter's answer: the reader is gone. */
  outputGone: boolean;
  /** Removes the starter's own stdout listeners, once the child's writer listens. */
  stopWatching?: () => void;
}

/** Loads the full child; what it returns serves stdin and stdout from the handover on. */
type ChildLoader = () => Promise<(handover: Handover) => void>;

/** Inlined by scripts/bundle.js; undefined where this module runs unbundled (then no fast path). */
declare const MC_INITIALIZE_FACTS: InitializeFacts | undefined;

export function startChild(load: ChildLoader, env: NodeJS.ProcessEnv = process.env): void {
  const facts = typeof MC_INITIALIZE_FACTS === "undefined" ? undefined : MC_INITIALIZE_FACTS;
  const input = process.stdin;
  const handover: Handover = {
    splitter: new FrameSplitter(LIMITS.frame_bytes),
    events: [],
    ended: false,
    initialized: null,
    outputGone: false,
  };
  if (facts === undefined || env.MC_AGENT_FAST_START === "0") {
    void handOver(load, handover, () => {});
    return;
  }
  let decided = false;
  const onData = (chunk: Buffer) => {
    handover.events.push(...handover.splitter.push(chunk));
    decide();
  };
  const onEnd = () => {
    handover.events.push(...handover.splitter.end());
    handover.ended = true;
    decide();
  };
  const detach = () => {
    input.removeListener("data", onData);
    input.removeListener("end", onEnd);
  };
  const decide = (waited = false) => {
    if (decided) return;
    const first = handover.events[0];
    if (first === undefined && !handover.ended && !waited) return;
    decided = true;
    if (first?.kind === "frame") answerInitialize(first.bytes, facts, handover);
    // Paused until the child's own listeners are on: what comes meanwhile waits in the pipe.
    input.pause();
    void handOver(load, handover, detach);
  };
  input.on("data", onData);
  input.on("end", onEnd);
  // The loop's second check phase: the frames waiting since the spawn have been read by then.
  // None yet: the frontend writes later, and the child loads while it waits.
  setImmediate(() => setImmediate(() => decide(true)));
}

/** Answers the first frame when it is an initialize the hand check accepts. */
function answerInitialize(bytes: Uint8Array, facts: InitializeFacts, handover: Handover): void {
  const decoded = decodeFrame(bytes);
  if (!decoded.ok || decoded.request.method !== "initialize") return;
  const { id, params } = decoded.request;
  const line = fastInitializeLine(id, params, facts);
  if (line === null) return;
  // A reader already gone (EPIPE) is the child's to handle once it has loaded: stdout's error
  // and close may come before its writer listens, so they are noted for it (stdio.ts).
  const gone = () => {
    handover.outputGone = true;
  };
  process.stdout.on("error", gone);
  process.stdout.on("close", gone);
  handover.stopWatching = () => {
    process.stdout.removeListener("error", gone);
    process.stdout.removeListener("close", gone);
  };
  process.stdout.write(line);
  handover.events.shift();
  handover.initialized = {
    id,
    capabilities: (params.required_capabilities as string[]).slice(),
  };
}

/** Loads the child and gives it the handover; a failed load fails the process as before. */
async function handOver(load: ChildLoader, handover: Handover, detach: () => void) {
  const serve = await load();
  detach();
  serve(handover);
  handover.stopWatching?.();
}

import { createRequire } from "node:module";
import { LIMITS } from "../protocol/constants.js";
import { decodeFrame } from "../protocol/envelope.js";
import { type FrameEvent, FrameSplitter } from "../protocol/framing.js";
import { withHandedOver } from "../protocol/secret-handoff.js";
import { resolveHome } from "../store/home.js";
import { readEarly } from "./early-input.js";
import { fastInitializeLine, type InitializeFacts } from "./initialize-fast.js";
import { type OutputWatch, writeAnswer } from "./output-watch.js";
import type { SessionCreated } from "./session-create-fast.js";

/**
 * The first thing `mc-agent stdio` runs: a few kilobytes, no zod, built into
 * dist/child/starter.cjs with the protocol's facts inlined (scripts/bundle.js). It reads the
 * child's first frame and, when it is an `initialize` the hand check of initialize-fast.ts
 * accepts, answers it at once; then it loads the rest of the child and hands it everything it
 * read. A frontend sees its initialize result about a bare Node start after its spawn instead
 * of after the whole child has loaded (docs/local-agent-protocol.md, "Fast start"; docs/benchmarks.md).
 * An initialize negotiating `turn` names what the child finds out (its sandbox, by a real run,
 * and its checkpoints): the starter finds it out first with the child's own code (src/server/turn-facts.ts)
 * and answers when that proves the child's answer, and the child adopts what it found; when the
 * probe memo holds what the last real probe of this very start found, it answers from that at
 * once and the probe runs after the answer (src/agent/sandbox/probe-memo.ts).
 * Once it has answered an initialize negotiating `session.create`, it waits a moment for the next
 * frame: a `session.create` the hand check of session-create-fast.ts accepts is answered too, so
 * a frontend's session is ready while the child loads.
 * The first frame is read from fd 0 directly and the answers written to fd 1 directly
 * (early-input.ts, output-watch.ts `writeAnswer`): Node's stdin and stdout streams are made
 * after the answer. Anything else (another first frame, an initialize the check leaves to the
 * child, a stdin not readable that way) is the full child's, as if it had started alone.
 * `MC_AGENT_FAST_START=0` hands over before reading anything.
 */

/** What the full child takes over from the starter (src/server/stdio.ts `serveStdio`). */
export interface Handover extends OutputWatch {
  /** The splitter, holding the start of a frame not yet whole, if any. */
  splitter: FrameSplitter;
  /** Frames read and not yet handled, in order. */
  events: FrameEvent[];
  /** Whether stdin ended behind `events`. */
  ended: boolean;
  /** The initialize the starter answered, if it did: its ID and the capabilities negotiated. */
  initialized: { id: string; capabilities: string[] } | null;
  /** The `session.create` the starter answered after it, if it did: the child's attachment. */
  created?: SessionCreated;
  /**
   * What the starter found out for an initialize negotiating `turn` (answered or not): the
   * child adopts it instead of probing again (src/server/turn-facts.ts says what it holds).
   */
  turnFacts?: TurnFactsSource;
}

/**
 * What src/server/turn-facts.ts finds for an initialize negotiating `turn`, as far as the
 * starter needs it: the child's own code, which this room does not import, in a file of its own
 * (dist/child/turn-facts.cjs).
 */
export interface TurnFactsSource {
  /**
   * The found-out extension parameters by capability as the probe memo has them for these very
   * inputs (docs/tools.md, "Found out once per child"), or null: then the probes have started.
   */
  remembered: Record<string, object> | null;
  /** Starts the probes (once), when `remembered` has let them wait for the answer. */
  run(): void;
  /** Once found: the found-out extension parameters by capability when proven, else null. */
  readonly proven: Promise<Record<string, object> | null>;
}

/** The shape of dist/child/turn-facts.cjs. */
interface TurnFactsModule {
  startTurnFacts(handedOver: string | null): TurnFactsSource;
}

/** Loads the full child; what it returns serves stdin and stdout from the handover on. */
type ChildLoader = () => Promise<(handover: Handover) => void>;

/** Inlined by scripts/bundle.js; undefined where this module runs unbundled (then no fast path). */
declare const MC_INITIALIZE_FACTS: InitializeFacts | undefined;

/**
 * `handedOver`: the credentials the launcher handed over (bin/mc-agent.js), which the child adds
 * to its environment: what the starter finds out for `turn` is found with that environment too.
 */
export function startChild(
  handedOver: string | null,
  load: ChildLoader,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const facts = typeof MC_INITIALIZE_FACTS === "undefined" ? undefined : MC_INITIALIZE_FACTS;
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
  // Read before anything makes process.stdin (early-input.ts).
  const { splitter, events } = handover;
  const read = readEarly((chunk) => {
    events.push(...splitter.push(chunk));
    return events.length > 0;
  });
  if (read === "end") {
    events.push(...splitter.end());
    handover.ended = true;
  }
  if (read === "unreadable") return void handOver(load, handover, () => {});
  /** The stream, made only to wait for a frame behind the initialize (`loadAfter`). */
  let input: NodeJS.ReadStream | null = null;
  /** Set while the starter waits for the frame behind its initialize (`loadAfter`). */
  let second: (() => void) | null = null;
  const onData = (chunk: Buffer) => {
    handover.events.push(...handover.splitter.push(chunk));
    second?.();
  };
  const onEnd = () => {
    handover.events.push(...handover.splitter.end());
    handover.ended = true;
    second?.();
  };
  const detach = () => {
    input?.removeListener("data", onData);
    input?.removeListener("end", onEnd);
  };
  /**
   * Loads the child once the starter has answered what it may (`before` runs first). After an
   * initialize negotiating `session.create`, the next frame is waited for, at most
   * SECOND_FRAME_WAIT_MS: a frontend writes it as soon as it has the answer, and the load,
   * once begun, holds the event loop until the child serves. Any frame ends the wait: only a
   * frontend that writes nothing, so that nothing waits for an answer, meets the bound. The
   * answer is out by then: the stream is made for this wait, and the child reads on from it.
   */
  const loadAfter = (before: () => void = () => {}) => {
    let timer: NodeJS.Timeout | undefined;
    const proceed = () => {
      second = null;
      clearTimeout(timer);
      // Paused until the child's own listeners are on: what comes meanwhile waits in the pipe.
      input?.pause();
      before();
      void handOver(load, handover, detach);
    };
    const initialized = handover.initialized;
    if (initialized === null || !initialized.capabilities.includes("session.create"))
      return proceed();
    second = () => {
      const next = handover.events[0];
      if (next === undefined && !handover.ended) return;
      second = null;
      if (next?.kind !== "frame") return proceed();
      void answerSessionCreate(next.bytes, initialized, handover, handedOver).then(proceed);
    };
    if (handover.events.length > 0 || handover.ended) return second();
    timer = setTimeout(proceed, SECOND_FRAME_WAIT_MS);
    input = process.stdin;
    input.on("data", onData);
    input.on("end", onEnd);
  };
  /** Answers the first frame when the starter may, then loads the child. */
  const decide = () => {
    const first = handover.events[0];
    const request = first?.kind === "frame" ? initializeRequest(first.bytes) : null;
    if (request === null) return void handOver(load, handover, detach);
    if (!needsTurnFacts(request.params)) {
      answerInitialize(request, facts, handover);
      return loadAfter();
    }
    // One the hand check leaves to the child (whatever is found) is the child's at once.
    const accepted = fastInitializeLine(request.id, request.params, facts, { turn: {} }) !== null;
    // Started only now: a spawn waits for its process to start (libuv), which a plain
    // initialize, the most common first frame, should not wait behind (docs/benchmarks.md).
    const turnFacts = accepted ? startTurnFacts(handedOver) : null;
    if (turnFacts === null) return void handOver(load, handover, detach);
    handover.turnFacts = turnFacts;
    if (turnFacts.remembered !== null) {
      // What the last real probe of these very runs found: answered at once, and the probes
      // run while the child loads (a `sandboxed` turn waits for them, src/server/turn-facts.ts).
      answerInitialize(request, facts, handover, turnFacts.remembered);
      // After the session.create behind it, if any: the spawn is milliseconds of this thread.
      return loadAfter(() => turnFacts.run());
    }
    // The child loads once the probe has ended: its load would hold the event loop, and the
    // answer with it, for longer than the probe takes.
    void turnFacts.proven.then((extras) => {
      if (extras) answerInitialize(request, facts, handover, extras);
      loadAfter();
    });
  };
  decide();
}

/**
 * How long the starter waits, after its initialize answer, for a frame behind it (`loadAfter`):
 * long enough for a frontend on a busy machine to have read the answer and written its next
 * request, short against anything a person waits for.
 */
const SECOND_FRAME_WAIT_MS = 50;

interface InitializeRequest {
  id: string;
  params: unknown;
}

/** The first frame when it is a request named `initialize` (its params not yet checked). */
function initializeRequest(bytes: Uint8Array): InitializeRequest | null {
  const decoded = decodeFrame(bytes);
  if (!decoded.ok || decoded.request.method !== "initialize") return null;
  return { id: decoded.request.id, params: decoded.request.params };
}

/** Whether the request asks for `turn` (whether the rest holds is the hand check's to say). */
function needsTurnFacts(params: unknown): boolean {
  const list = (params as { required_capabilities?: unknown } | null)?.required_capabilities;
  return Array.isArray(list) && list.includes("turn");
}

/**
 * Starts finding out what an initialize negotiating `turn` names (src/server/turn-facts.ts), or null where
 * that fails (the child then finds out itself, as it would have).
 */
function startTurnFacts(handedOver: string | null): TurnFactsSource | null {
  try {
    // Its own file beside this one (scripts/bundle.js), with the sandbox's and git's code.
    const found: TurnFactsModule = createRequire(__filename)("./turn-facts.cjs");
    return found.startTurnFacts(handedOver);
  } catch {
    return null;
  }
}

/**
 * Answers the first frame when it is an initialize the hand check accepts, with `extras` (the
 * parameters found out, by capability) merged into the extensions as the child merges them.
 */
function answerInitialize(
  request: InitializeRequest,
  facts: InitializeFacts,
  handover: Handover,
  extras?: Record<string, object>,
): void {
  const { id, params } = request;
  const line = fastInitializeLine(id, params, facts, extras);
  if (line === null) return;
  // A reader already gone (EPIPE) is the child's to handle once it has loaded.
  writeAnswer(handover, line);
  handover.events.shift();
  handover.initialized = {
    id,
    // The hand check accepted it: a list of capability names.
    capabilities: (params as { required_capabilities: string[] }).required_capabilities.slice(),
  };
}

/**
 * Answers the frame behind the starter's initialize when it is a `session.create` the hand check
 * accepts (session-create-fast.ts), in the MC_HOME the child derives (src/server/stdio.ts).
 */
async function answerSessionCreate(
  bytes: Uint8Array,
  initialized: NonNullable<Handover["initialized"]>,
  handover: Handover,
  handedOver: string | null,
): Promise<void> {
  // On first use: its node:crypto (the UUID) is milliseconds no initialize answer waits for.
  // Bundled into this file all the same (scripts/bundle.js), so this is a microtask, no read.
  const { fastSessionCreate, isFastSessionCreate } = await import("./session-create-fast.js");
  const decoded = decodeFrame(bytes);
  if (!decoded.ok || !isFastSessionCreate(decoded.request, initialized)) return;
  const home = resolveHome(withHandedOver(process.env, handedOver));
  const { line, created } = fastSessionCreate(decoded.request, home);
  writeAnswer(handover, line);
  handover.events.shift();
  handover.created = created;
}

/** Loads the child and gives it the handover; a failed load fails the process as before. */
async function handOver(load: ChildLoader, handover: Handover, detach: () => void) {
  const serve = await load();
  detach();
  serve(handover);
  handover.stopWatching?.();
}

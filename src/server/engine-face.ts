/**
 * The engine's one face for an in-process frontend (`mc-agent acp`): the state, handlers and
 * dispatcher `mc-agent stdio` serves, spoken to in typed requests of the method table. Every
 * rule of ours applies unchanged, because each request still goes through the dispatcher's
 * admission (phase, capabilities, params schema, busy, child bound) and each answer through its
 * checks (result schema, frame bound). Only the text is skipped: a request goes in as the value
 * a frame would have decoded to, and an answer comes back as the value its frame encodes.
 */
import type { ErrorCode } from "../protocol/codes.js";
import type { Request } from "../protocol/envelope.js";
import type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
import { RawJson } from "../protocol/raw-json.js";
import type { NextStep } from "../protocol/recovery.js";
import type { SandboxKind, TurnEventParams, TurnResult } from "../protocol/schemas/turns.js";
import { wellFormed } from "../protocol/well-formed.js";
import { Dispatcher } from "./dispatcher.js";
import { buildHandlers, type HandlerOptions } from "./handlers/index.js";
import { createModelServices, type ModelServices } from "./handlers/model-services.js";
import type { OutboundFrame } from "./outbound.js";
import { createState, type ServerState } from "./state.js";

/**
 * What an ACP starter finds out for an engine's initialize, typed as the stdio starter's; and
 * the functions that find it, for the agent that finds it itself (src/acp/main.ts).
 */
export { type ChildInputs, childInputs, type TurnFacts, turnFactsOf } from "./turn-facts.js";

/**
 * A request the engine refused: its wire code, its (path-free) message, and its next step when
 * the frontend negotiated `errors.recovery` and the error carries one.
 */
export class EngineError extends Error {
  override readonly name = "EngineError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly next: NextStep | null = null,
  ) {
    super(message);
  }
}

interface EngineFaceOptions
  extends Pick<
    HandlerOptions,
    "toolHost" | "sessionRules" | "mcpSource" | "turnFacts" | "memoAnswers"
  > {
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** What a turn's events go to, in order; the engine awaits each (backpressure). */
export type TurnEventSink = (event: TurnEventParams) => Promise<void>;

interface Waiter {
  resolve(result: unknown): void;
  reject(error: EngineError): void;
}

/** One engine for one canonical cwd, reached through typed requests. */
export class EngineFace {
  private readonly dispatcher: Dispatcher;
  private readonly state: ServerState;
  private readonly waiters = new Map<string, Waiter>();
  private readonly sinks = new Map<string, TurnEventSink>();
  private next = 0;
  private stopped: Promise<void> | null = null;
  private onStopped: () => void = () => {};

  constructor(options: EngineFaceOptions) {
    const state = createState(options.cwd, options.home, options.env);
    this.state = state;
    const handlers = buildHandlers(state, {
      ...(options.toolHost ? { toolHost: options.toolHost } : {}),
      ...(options.sessionRules ? { sessionRules: options.sessionRules } : {}),
      ...(options.mcpSource ? { mcpSource: options.mcpSource } : {}),
      ...(options.turnFacts ? { turnFacts: options.turnFacts } : {}),
      ...(options.memoAnswers ? { memoAnswers: true } : {}),
      settingsReported: true,
    });
    this.dispatcher = new Dispatcher({
      state,
      handlers,
      write: (_line, _kind, frame) => this.receive(frame),
      onStopped: () => this.onStopped(),
      // An in-process frontend keeps one engine for as long as its session lives: no lifetime
      // bound on its requests beyond what each request is bounded by.
      childRequests: Number.MAX_SAFE_INTEGER,
    });
  }

  /** Sends one request; resolves with its result or rejects with the engine's EngineError. */
  request<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.send(method, params, this.nextId());
  }

  /**
   * Starts a turn. `sink` gets each event in order; the engine awaits it (backpressure), so a
   * slow frontend slows the turn rather than growing a buffer. Returns the request ID (what
   * turn.interrupt names) and the turn's result.
   */
  startTurn(
    params: ParamsOf<"turn.start">,
    sink: TurnEventSink,
  ): { requestId: string; result: Promise<TurnResult> } {
    const requestId = this.nextId();
    this.sinks.set(requestId, sink);
    const result = this.send("turn.start", params, requestId);
    const done = result.finally(() => this.sinks.delete(requestId));
    return { requestId, result: done };
  }

  /**
   * When its initialize answered the sandbox from the probe memo (handlers/sandbox-answer.ts):
   * runs the real probe (if nothing has yet) and settles with the sandbox it found; else null.
   */
  sandboxConfirmed(): Promise<SandboxKind | null> | null {
    return this.state.sandboxConfirmed?.() ?? null;
  }

  /**
   * Stops the engine as EOF stops a child: running turns are interrupted and end with their
   * results (saved), every lock is released; resolves when it has drained (at most cleanup_ms).
   */
  close(): Promise<void> {
    if (!this.stopped) {
      this.stopped = new Promise<void>((resolve) => {
        this.onStopped = resolve;
      });
      this.dispatcher.endOfInput();
    }
    return this.stopped;
  }

  private nextId(): string {
    this.next += 1;
    return `a${this.next}`;
  }

  private send<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    id: string,
  ): Promise<ResultOf<M>> {
    const request: Request = { id, method, params: frameParams(params) };
    return new Promise<ResultOf<M>>((resolve, reject) => {
      // The dispatcher checked the result against METHODS[method].result before writing it.
      this.waiters.set(id, { resolve: (result) => resolve(result as ResultOf<M>), reject });
      this.dispatcher.submit(request);
    });
  }

  private receive(frame: OutboundFrame): Promise<void> {
    if ("method" in frame) {
      if (frame.method !== "turn.event") return Promise.resolve();
      // The dispatcher checked the params against turn.event's schema before writing them.
      const event = frame.params as TurnEventParams;
      const sink = this.sinks.get(event.request_id);
      return sink ? sink(event) : Promise.resolve();
    }
    const waiter = frame.id === null ? undefined : this.waiters.get(frame.id);
    if (waiter && frame.id !== null) {
      this.waiters.delete(frame.id);
      if ("error" in frame) waiter.reject(engineError(frame.error));
      else waiter.resolve(storedValues(frame.result));
    }
    return Promise.resolve();
  }
}

/** An error frame's object as an EngineError, its next step kept when it has one. */
function engineError(error: {
  code: ErrorCode;
  message: string;
  recovery?: NextStep["recovery"];
  provider?: string | null;
}): EngineError {
  const next = error.recovery
    ? { recovery: error.recovery, provider: error.provider ?? null }
    : null;
  return new EngineError(error.code, error.message, next);
}

/**
 * The model services an engine for `cwd` starts with (settings, providers, credential paths),
 * for a frontend that must know them before it opens one.
 */
export function engineModelServices(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
): ModelServices {
  return createModelServices(createState(cwd, home, env), { warn: false });
}

/**
 * `params` as the value a frame of them decodes to: members that are undefined are absent (in an
 * array, null), and every string, key or value, is well-formed, as `parseJson` makes a frame's
 * (well-formed.ts): an editor's JSON may carry a lone surrogate, and nothing we store may.
 */
function frameParams(params: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(params)) {
    // defineProperty, not assignment: a "__proto__" key stays a key, as a parse makes it.
    if (item !== undefined)
      Object.defineProperty(out, wellFormed(key), {
        value: frameValue(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

function frameValue(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value))
    return value.map((item) => (item === undefined ? null : frameValue(item)));
  return frameParams(value);
}

/**
 * A result with each stored record (RawJson, written verbatim) as the value its stored text
 * holds; the result itself when it holds none (most results).
 */
function storedValues(value: unknown): unknown {
  if (value instanceof RawJson) return JSON.parse(value.text);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(storedValues);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  const entries = Object.entries(value);
  const stored = entries.map(([key, item]) => [key, storedValues(item)] as const);
  return stored.some(([, item], i) => item !== entries[i]?.[1])
    ? Object.fromEntries(stored)
    : value;
}

import { log } from "../process/log.js";
import { CAPABILITIES, methodsOf } from "../protocol/capabilities.js";
import { type ErrorCode, ProtocolError } from "../protocol/codes.js";
import { LIMITS } from "../protocol/constants.js";
import { decodeFrame, type Request } from "../protocol/envelope.js";
import { safeParse } from "../protocol/first-parse.js";
import type { FrameEvent } from "../protocol/framing.js";
import {
  isMethodName,
  METHODS,
  type MethodName,
  type MethodSpec,
  type ParamsOf,
} from "../protocol/methods.js";
import { isEmptyParams } from "../protocol/schemas/common.js";
import type { ControlHandler, Handler, HandlerTable, RequestContext } from "./handler.js";
import { lifecycleResults } from "./lifecycle.js";
import { type ActiveOperation, commitFor, endsCancelled, OperationRegistry } from "./operations.js";
import { type FrameSink, Outbound } from "./outbound.js";
import { Shutdown } from "./shutdown.js";
import type { ServerState } from "./state.js";
import { TurnQueue } from "./turn-queue.js";

interface DispatcherOptions {
  state: ServerState;
  handlers: HandlerTable;
  /** Writes one encoded frame (with its LF); resolves when the output has room again. */
  write: FrameSink;
  /**
   * Called once, after the shutdown answer (if any) was written, with the time (epoch ms) by
   * which the child must be gone (`cleanup_ms` after the shutdown began), and whether the
   * cleanup finished within its bound (every request ended, every closer done).
   */
  onStopped: (deadline: number, finished: boolean) => void;
  /** The lifetime bound on admitted requests (default `limits.child_requests`; none in ACP). */
  childRequests?: number;
}

/** Methods the dispatcher answers itself: they need no handler. */
const BUILT_IN: ReadonlySet<MethodName> = new Set<MethodName>([
  "initialize",
  "status",
  "shutdown",
  "operation.cancel",
]);

/**
 * Admission and dispatch: decides for every frame whether it is admitted, answers it or hands it
 * to its handler, and guarantees exactly one terminal response per admitted request.
 */
export class Dispatcher {
  private readonly state: ServerState;
  private readonly ops = new OperationRegistry();
  private readonly out: Outbound;
  /** IDs of admitted requests (never status/shutdown); bounded by `child_requests`. */
  private readonly usedIds = new Set<string>();
  private readonly childRequests: number;
  private admitted = 0;
  private workerHolder: string | null = null;
  private scanHolder: string | null = null;
  /** While an initialize result waits (lifecycle.ts), what was read behind it, in order. */
  private held: (() => void)[] | null = null;
  private readonly results;
  private readonly queue: TurnQueue;
  private readonly shutdown: Shutdown;

  constructor(private readonly options: DispatcherOptions) {
    this.state = options.state;
    this.out = new Outbound(options.write, options.state);
    this.childRequests = options.childRequests ?? LIMITS.child_requests;
    this.queue = new TurnQueue(options.state);
    this.shutdown = new Shutdown({
      state: this.state,
      ops: this.ops,
      queue: this.queue,
      out: this.out,
      onStopped: options.onStopped,
    });
    this.results = lifecycleResults(this.state, () => this.implementedCapabilities());
    this.state.announce = (method, params) =>
      void this.out.notification(method, params as never, null).catch(() => {});
  }

  handle(event: FrameEvent): void {
    if (this.held) return void this.held.push(() => this.handle(event));
    if (event.kind === "oversized") return this.out.error(null, "frame_too_large");
    const decoded = decodeFrame(event.bytes);
    if (!decoded.ok) return this.out.error(decoded.id, decoded.code);
    this.admit(decoded.request);
  }

  /** A request already in memory (engine-face.ts): admitted exactly as its decoded frame. */
  submit(request: Request): void {
    if (this.held) return void this.held.push(() => this.submit(request));
    this.admit(request);
  }

  /**
   * An initialize the starter answered before this dispatcher existed (starter.ts): admitted
   * and negotiated as if answered here. Its capabilities are ones this child implements and
   * whose parameters wait for nothing (test/boot/fast-start.test.ts holds the starter to it).
   */
  adoptInitialize(id: string, capabilities: readonly string[]): void {
    this.adoptAnswered(id);
    const implemented = this.implementedCapabilities();
    if (!capabilities.every((name) => implemented.has(name)))
      log("error", "the starter negotiated a capability this child does not implement");
    this.state.negotiated = new Set(CAPABILITIES.filter((name) => capabilities.includes(name)));
    this.state.phase = "ready";
  }

  /**
   * A request the starter answered behind its initialize (its `session.create`,
   * session-create-fast.ts): its ID is used and it counts against the child's bound, as if
   * answered here.
   */
  adoptAnswered(id: string): void {
    this.usedIds.add(id);
    this.admitted += 1;
  }

  /** Whether no request has run for `ms` (control requests such as `status` do not count). */
  quietFor(ms: number): boolean {
    return this.ops.quietFor(ms);
  }

  /** EOF on stdin: a shutdown without a response. */
  endOfInput(): void {
    if (this.held) return void this.held.push(() => this.endOfInput());
    void this.shutdown.request(null);
  }

  private admit(request: Request): void {
    const { id, method } = request;
    const spec = this.specFor(method);
    if (spec?.admission === "loop") return this.answerLoop(request);
    if (this.isTaken(id)) return this.out.error(id, "duplicate_request_id");
    if (this.admitted >= this.childRequests) return this.out.error(id, "child_exhausted");
    this.usedIds.add(id);
    this.admitted += 1;
    const admitted = this.refusal(request, spec);
    if (typeof admitted === "string") return this.out.error(id, admitted);
    // The checks above proved `spec` exists and the method is known.
    this.run(id, method as MethodName, spec as MethodSpec, admitted.params, admitted.wait);
  }

  /** An ID held by an active request (a draining shutdown's included), or used by an admitted one. */
  private isTaken(id: string): boolean {
    return this.usedIds.has(id) || this.ops.has(id) || this.shutdown.holds(id);
  }

  private specFor(method: string): MethodSpec | undefined {
    if (!isMethodName(method)) return undefined;
    const spec: MethodSpec = METHODS[method];
    // A test-only method exists only where it is served (a test build's table: test-seam.ts).
    if (spec.testOnly && !this.options.handlers[method]) return undefined;
    return spec;
  }

  /**
   * The first rule that refuses an admitted request, in the documented order; or, when none
   * does, its parsed params (parsed once: the handler gets what the check accepted).
   */
  private refusal(
    request: Request,
    spec: MethodSpec | undefined,
  ): ErrorCode | { params: unknown; wait: boolean } {
    if (this.state.phase === "shutting_down") return "shutting_down";
    if (!spec) return "method_not_found";
    if (spec.admission === "initialize") {
      if (this.state.phase === "ready") return "already_initialized";
    } else {
      if (this.state.phase !== "ready") return "not_initialized";
      if (spec.capability && !this.state.negotiated.has(spec.capability as never))
        return "unsupported_capability";
    }
    const parsed = safeParse(spec.params, request.params);
    if (!parsed.success) return "invalid_params";
    const method = request.method as MethodName;
    if (!BUILT_IN.has(method) && !this.options.handlers[method]) return "unsupported_capability";
    const admitted = { params: parsed.data, wait: false };
    if (spec.admission === "initialize" || spec.admission === "control") return admitted;
    if (this.ops.size >= LIMITS.active_requests) return "busy";
    if (method === "turn.start") {
      const holder =
        this.workerHolder === null ? null : (this.ops.get(this.workerHolder)?.method ?? null);
      const queued = this.queue.admission(parsed.data as ParamsOf<"turn.start">, holder);
      if (queued === "wait") return { ...admitted, wait: true };
      if (queued !== "run") return queued;
    }
    if (holdsWorker(spec) && this.workerHolder !== null) return "busy";
    if (spec.admission === "scan" && this.scanHolder !== null) return "busy";
    return admitted;
  }

  private answerLoop(request: Request): void {
    const { id, method } = request;
    if (this.isTaken(id)) return this.out.error(id, "duplicate_request_id");
    // Both loop methods take EmptyParams (the method table; test/protocol/empty-params.test.ts).
    if (!isEmptyParams(request.params)) return this.out.error(id, "invalid_params");
    if (method === "status") {
      const status = this.results.status({
        worker: this.workerHolder === null ? "idle" : "busy",
        active: this.ops.summaries(),
        requestsLeft: Math.max(0, this.childRequests - this.admitted),
      });
      return this.out.result(id, "status", status);
    }
    void this.shutdown.request(id);
  }

  private run(id: string, method: MethodName, spec: MethodSpec, params: unknown, wait = false) {
    if (spec.admission === "initialize") return this.initialize(id, params as never);
    if (spec.admission === "control")
      return this.settleSync(id, method, () => this.control(id, method, params));
    this.start(id, method, spec, params, wait);
  }

  /** Registers an asynchronous operation and settles it with exactly one terminal response. */
  private start(id: string, method: MethodName, spec: MethodSpec, params: unknown, wait: boolean) {
    const handler = this.options.handlers[method] as Handler<MethodName>;
    const controller = new AbortController();
    // A turn is interrupted by turn.interrupt, never by operation.cancel, and always ends with
    // its own result: shutdown's abort asks it to stop, it still answers.
    const turn = spec.admission === "turn";
    let finish: () => void = () => {};
    const op: ActiveOperation = {
      id,
      method,
      controller,
      cancellable: !turn,
      committed: false,
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
    };
    this.ops.add(op);
    if (holdsWorker(spec) && !wait) this.workerHolder = id;
    if (spec.admission === "scan") this.scanHolder = id;
    const settle = (answer: () => void) => {
      if (this.ops.get(id) !== op) return; // already answered by the shutdown cleanup bound
      // The answer matches the effect: a committed request (or a turn) answers its own result.
      if (!turn && endsCancelled(op)) this.out.error(id, "operation_cancelled");
      else answer();
      const freed = this.workerHolder === id;
      if (freed) this.workerHolder = null;
      if (this.scanHolder === id) this.scanHolder = null;
      this.ops.remove(id);
      finish();
      // The next queued turn takes the worker before anything else can (turn-queue.ts).
      if (freed && turn) this.queue.startNext();
    };
    const context: RequestContext = {
      id,
      signal: controller.signal,
      state: this.state,
      commit: commitFor(op),
      notify: (params) =>
        this.ops.get(id) === op
          ? this.out.notification("turn.event", params, id)
          : Promise.reject(new Error(`${method} notified after its answer`)),
    };
    // Started at once, not in a later microtask: a request read right behind this one (a
    // turn.interrupt behind its turn.start) finds what the handler set up synchronously.
    const begin = () => {
      let answer: Promise<unknown>;
      try {
        answer = Promise.resolve(handler(params as never, context));
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(
        (result) => settle(() => this.out.result(id, method, result)),
        (error: unknown) => settle(() => this.out.failure(id, method, error)),
      );
    };
    if (!wait) return begin();
    this.queue.enqueue({
      id,
      begin: () => {
        this.workerHolder = id;
        begin();
      },
      remove: (answer) =>
        settle(() =>
          typeof answer === "string"
            ? this.out.error(id, answer)
            : this.out.result(id, "turn.start", answer),
        ),
    });
  }

  /**
   * initialize, answered at once or, when its result waits (bounded: see lifecycle.ts), with
   * every frame read meanwhile held and handled after it, in order: the result still comes
   * before the answer to anything sent behind it.
   */
  private initialize(id: string, params: ParamsOf<"initialize">): void {
    let answer: ReturnType<typeof this.results.initialize>;
    try {
      answer = this.results.initialize(params);
    } catch (error) {
      return this.out.failure(id, "initialize", error);
    }
    if (!(answer instanceof Promise)) return this.out.result(id, "initialize", answer);
    const held: (() => void)[] = [];
    this.held = held;
    void answer
      .then(
        (result) => this.out.result(id, "initialize", result),
        (error) => this.out.failure(id, "initialize", error),
      )
      .finally(() => {
        this.held = null;
        for (const next of held) next();
      });
  }

  private settleSync(id: string, method: MethodName, produce: () => unknown): void {
    try {
      this.out.result(id, method, produce());
    } catch (error) {
      this.out.failure(id, method, error);
    }
  }

  /** A control method, on the loop: operation.cancel itself, or the method's own handler. */
  private control(id: string, method: MethodName, params: unknown): unknown {
    if (method === "operation.cancel") {
      const { request_id } = METHODS["operation.cancel"].params.parse(params);
      if (!this.ops.cancel(request_id)) throw new ProtocolError("operation_missing");
      return { state: "cancelling", request_id };
    }
    // A queued turn.start that has not started is removed here: its handler never ran.
    if (method === "turn.interrupt") {
      const { request_id } = METHODS["turn.interrupt"].params.parse(params);
      if (this.queue.interrupt(request_id)) return { state: "interrupting", request_id };
    }
    const handler = this.options.handlers[method] as ControlHandler<MethodName>;
    const result = handler(params as never, { id, state: this.state });
    if (result instanceof Promise) {
      void result.catch(() => {});
      throw new Error(`the ${method} handler is asynchronous; control handlers must not be`);
    }
    return result;
  }

  /** Capabilities this build can serve: those whose every method is built in or handled. */
  private implementedCapabilities(): Set<string> {
    return new Set(
      CAPABILITIES.filter((capability) =>
        methodsOf(capability).every((name) => BUILT_IN.has(name) || this.options.handlers[name]),
      ),
    );
  }
}

function holdsWorker(spec: MethodSpec): boolean {
  return spec.admission === "worker" || spec.admission === "turn";
}

import { DEFAULT_MESSAGES, type ErrorCode, ProtocolError } from "../protocol/codes.js";
import { LIMITS } from "../protocol/constants.js";
import { decodeFrame, encodeError, encodeResult, type Request } from "../protocol/envelope.js";
import type { FrameEvent } from "../protocol/framing.js";
import {
  isMethodName,
  METHODS,
  type MethodName,
  type MethodSpec,
  type ParamsOf,
} from "../protocol/methods.js";
import { checkWire } from "../protocol/raw-json.js";
import type { Handler, HandlerTable } from "./handler.js";
import { lifecycleResults } from "./lifecycle.js";
import { log } from "./log.js";
import { type ActiveOperation, OperationRegistry } from "./operations.js";
import type { ServerState } from "./state.js";

export interface DispatcherOptions {
  state: ServerState;
  handlers: HandlerTable;
  /** Writes one encoded frame (with its LF). */
  write: (line: string) => void;
  /** Whether test-only methods are reachable in this child. */
  testMethods: boolean;
  /** Called once, after the shutdown answer (if any) was written. */
  onStopped: () => void;
}

/**
 * Admission and dispatch: decides for every frame whether it is admitted, answers it or hands it
 * to its handler, and guarantees exactly one terminal response per admitted request.
 */
export class Dispatcher {
  private readonly state: ServerState;
  private readonly ops = new OperationRegistry();
  /** IDs of admitted requests (never status/shutdown); bounded by `child_requests`. */
  private readonly usedIds = new Set<string>();
  private admitted = 0;
  private workerHolder: string | null = null;
  private scanHolder: string | null = null;
  private stopping: Promise<void> | null = null;
  private readonly results;

  constructor(private readonly options: DispatcherOptions) {
    this.state = options.state;
    this.results = lifecycleResults(this.state, () => this.implementedCapabilities());
  }

  handle(event: FrameEvent): void {
    if (event.kind === "oversized") return this.reply(null, "frame_too_large");
    const decoded = decodeFrame(event.bytes);
    if (!decoded.ok) return this.reply(decoded.id, decoded.code);
    this.admit(decoded.request);
  }

  /** EOF on stdin: a shutdown without a response. */
  endOfInput(): void {
    void this.shutdown(null);
  }

  private admit(request: Request): void {
    const { id, method } = request;
    const spec = this.specFor(method);
    if (spec?.admission === "loop") return this.answerLoop(request);
    if (this.usedIds.has(id) || this.ops.has(id)) return this.reply(id, "duplicate_request_id");
    if (this.admitted >= LIMITS.child_requests) return this.reply(id, "child_exhausted");
    this.usedIds.add(id);
    this.admitted += 1;
    const refusal = this.refusal(request, spec);
    if (refusal) return this.reply(id, refusal);
    // The checks above proved `spec` exists and the method is known.
    this.run(request, method as MethodName, spec as MethodSpec);
  }

  private specFor(method: string): MethodSpec | undefined {
    if (!isMethodName(method)) return undefined;
    const spec: MethodSpec = METHODS[method];
    if (spec.testOnly && !this.options.testMethods) return undefined;
    return spec;
  }

  /** The first rule that refuses an admitted request, in the documented order. */
  private refusal(request: Request, spec: MethodSpec | undefined): ErrorCode | null {
    if (this.state.phase === "shutting_down") return "shutting_down";
    if (!spec) return "method_not_found";
    if (spec.admission === "initialize") {
      if (this.state.phase === "ready") return "already_initialized";
    } else {
      if (this.state.phase !== "ready") return "not_initialized";
      if (spec.capability && !this.state.negotiated.has(spec.capability))
        return "unsupported_capability";
    }
    if (!spec.params.safeParse(request.params).success) return "invalid_params";
    if (spec.admission === "initialize" || spec.admission === "control") return null;
    if (this.ops.size >= LIMITS.active_requests) return "busy";
    if (spec.admission === "worker" && this.workerHolder !== null) return "busy";
    if (spec.admission === "scan" && this.scanHolder !== null) return "busy";
    if (!this.handlerFor(request.method as MethodName)) return "unsupported_capability";
    return null;
  }

  private answerLoop(request: Request): void {
    const { id, method } = request;
    // An ID held by an active request, or used by an admitted one, is taken.
    if (this.usedIds.has(id) || this.ops.has(id)) return this.reply(id, "duplicate_request_id");
    // Each loop method is checked against its own params schema from the table.
    const params = METHODS[method as "status" | "shutdown"].params;
    if (!params.safeParse(request.params).success) return this.reply(id, "invalid_params");
    if (method === "status") {
      const status = this.results.status({
        worker: this.workerHolder === null ? "idle" : "busy",
        active: this.ops.list().map((op) => ({ id: op.id, method: op.method })),
        requestsLeft: Math.max(0, LIMITS.child_requests - this.admitted),
      });
      return this.send(id, "status", status);
    }
    void this.shutdown(id);
  }

  private run(request: Request, method: MethodName, spec: MethodSpec): void {
    const { id } = request;
    const params = spec.params.parse(request.params);
    if (spec.admission === "initialize")
      return this.settleSync(id, method, () =>
        this.results.initialize(params as ParamsOf<"initialize">),
      );
    if (spec.admission === "control")
      return this.settleSync(id, method, () => this.cancelRequest(params));
    const handler = this.handlerFor(method) as Handler<MethodName>;
    const controller = new AbortController();
    let finish: () => void = () => {};
    const op: ActiveOperation = {
      id,
      method,
      controller,
      cancellable: true,
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
    };
    this.ops.add(op);
    if (spec.admission === "worker") this.workerHolder = id;
    if (spec.admission === "scan") this.scanHolder = id;
    const release = () => {
      if (this.workerHolder === id) this.workerHolder = null;
      if (this.scanHolder === id) this.scanHolder = null;
      this.ops.remove(id);
      finish();
    };
    const context = { id, signal: controller.signal, state: this.state };
    Promise.resolve()
      .then(() => handler(params as never, context))
      .then(
        (result) => {
          if (!this.ops.has(id)) return; // already answered by the shutdown cleanup bound
          if (controller.signal.aborted) this.reply(id, "operation_cancelled");
          else this.send(id, method, result);
          release();
        },
        (error: unknown) => {
          if (!this.ops.has(id)) return;
          if (controller.signal.aborted) this.reply(id, "operation_cancelled");
          else this.replyError(id, method, error);
          release();
        },
      );
  }

  private settleSync(id: string, method: MethodName, produce: () => unknown): void {
    try {
      this.send(id, method, produce());
    } catch (error) {
      this.replyError(id, method, error);
    }
  }

  private cancelRequest(params: unknown): unknown {
    const { request_id } = METHODS["operation.cancel"].params.parse(params);
    if (!this.ops.cancel(request_id)) throw new ProtocolError("operation_missing");
    return { state: "cancelling", request_id };
  }

  private handlerFor(method: MethodName): Handler<MethodName> | undefined {
    return this.options.handlers[method] as Handler<MethodName> | undefined;
  }

  /** Capabilities this build can serve: those whose methods all have handlers. */
  private implementedCapabilities(): Set<string> {
    const implemented = new Set<string>(["operation.cancel"]);
    for (const [name, spec] of Object.entries(METHODS) as [MethodName, MethodSpec][]) {
      if (
        spec.capability &&
        spec.capability !== "operation.cancel" &&
        this.options.handlers[name]
      ) {
        implemented.add(spec.capability);
      }
    }
    return implemented;
  }

  /** Stops admitting, cancels in-flight work, waits at most `cleanup_ms`, answers, stops. */
  private shutdown(id: string | null): Promise<void> {
    if (!this.stopping) {
      this.state.phase = "shutting_down";
      this.ops.cancelAll();
      this.stopping = this.drain().then(() => {
        // Whatever did not drain in time still gets its one terminal response.
        for (const op of this.ops.list()) {
          this.reply(op.id, "operation_cancelled");
          this.ops.remove(op.id);
        }
      });
      // Deferred past the microtasks that write the shutdown answers below.
      void this.stopping.then(() => setImmediate(() => this.options.onStopped()));
    }
    if (id !== null) {
      return this.stopping.then(() => this.send(id, "shutdown", { state: "stopped" }));
    }
    return this.stopping;
  }

  private async drain(): Promise<void> {
    const pending = this.ops.list().map((op) => op.done);
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, LIMITS.cleanup_ms - 50);
    });
    await Promise.race([Promise.all(pending), bound]);
    clearTimeout(timer);
  }

  private send(id: string, method: MethodName, result: unknown): void {
    const checked = checkWire(METHODS[method].result, result);
    if (!checked.ok) {
      log("error", `${method} produced a result outside its schema`);
      log("debug", JSON.stringify(checked.issues));
      return this.reply(id, "internal_error");
    }
    this.options.write(encodeResult(id, checked.value));
  }

  private replyError(id: string, method: string, error: unknown): void {
    if (error instanceof ProtocolError) return this.reply(id, error.code, error.message);
    log("error", `${method} failed unexpectedly`);
    log("debug", error instanceof Error ? (error.stack ?? error.message) : String(error));
    this.reply(id, "internal_error");
  }

  private reply(id: string | null, code: ErrorCode, message = DEFAULT_MESSAGES[code]): void {
    this.options.write(encodeError(id, code, message));
  }
}

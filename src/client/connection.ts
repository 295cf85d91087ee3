import type { ChildProcess } from "node:child_process";
import type { Capability } from "../protocol/capabilities.js";
import { LIMITS } from "../protocol/constants.js";
import { FrameSplitter } from "../protocol/framing.js";
import {
  isNotificationName,
  METHODS,
  type MethodName,
  NOTIFICATIONS,
  type NotificationName,
  type NotificationParamsOf,
  type ParamsOf,
  type ResultOf,
} from "../protocol/methods.js";
import { ClientError, RemoteError } from "./errors.js";
import { decodeResponse } from "./response.js";

/** A notification the child wrote about one of this client's requests. */
export type Notification = {
  [N in NotificationName]: { method: N; params: NotificationParamsOf<N> };
}[NotificationName];

export interface CallOptions {
  /** Aborting sends `operation.cancel` (when negotiated) and still awaits the terminal response. */
  signal?: AbortSignal;
  /** Called with the request's ID as soon as its frame is written (e.g. for turn.interrupt). */
  onSent?: (id: string) => void;
  /**
   * Called as the response frame is read, before any later frame of the same chunk (the
   * promise settles a microtask later, after them): initialize uses it so that a notification
   * written right after its answer is judged by what was negotiated; `ok` is false for an
   * error answer. It must not throw.
   */
  onAnswered?: (ok: boolean) => void;
  /**
   * Receives the notifications about this request (turn.event for turn.start), in order, all
   * before the call settles. It must not throw; whatever it throws is dropped.
   */
  onNotification?: (notification: Notification) => void;
}

/** Sees every frame as it crosses the pipe (for logs and tests); must not throw. */
export type Tracer = (direction: "out" | "in", line: string) => void;

interface Pending {
  method: MethodName;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  onNotification?: ((notification: Notification) => void) | undefined;
  onAnswered?: ((ok: boolean) => void) | undefined;
}

interface ConnectionOptions {
  /** What was negotiated (empty before initialize): cancellation and notifications need it. */
  capabilities: () => ReadonlySet<Capability>;
  trace?: Tracer;
  /**
   * Receives the notifications about the child itself (`mcp.changed`), which belong to no
   * request. It must not throw; whatever it throws is dropped.
   */
  onChildNotification?: (notification: Notification) => void;
}

const encoder = new TextEncoder();

/**
 * One child over its pipes: unique IDs, out-of-order correlation, abort through
 * `operation.cancel`, and the guarantee that nothing waits forever: when the child exits, breaks
 * the protocol or is closed, every pending call rejects at once.
 */
export class Connection {
  private readonly pending = new Map<string, Pending>();
  private readonly splitter = new FrameSplitter(LIMITS.frame_bytes);
  private nextId = 0;
  /** Set once the connection stops delivering: the reason every later call fails with. */
  private ended: ClientError | null = null;
  /** Set when shutdown was answered: later frames are ignored, not treated as violations. */
  private quiet = false;
  /** Set by close(): the exit that follows is expected, so pending calls fail as `closed`. */
  private closing = false;
  readonly exited: Promise<void>;

  constructor(
    private readonly proc: ChildProcess,
    private readonly options: ConnectionOptions,
  ) {
    proc.stdout?.on("data", (chunk: Buffer) => this.onData(chunk));
    proc.stdin?.on("error", () => {}); // EPIPE after the child died: reported by 'exit'
    this.exited = new Promise<void>((resolve) => {
      // "close", not "exit": it fires only after stdout has delivered its last frames.
      proc.once("close", (code, signal) => {
        const how = signal ? `signal ${signal}` : `code ${code}`;
        this.end(
          this.closing
            ? new ClientError("closed", "The client was closed.")
            : new ClientError("child_exited", `The child exited (${how}).`),
        );
        resolve();
      });
      proc.once("error", (error: NodeJS.ErrnoException) => {
        this.end(
          new ClientError(
            "spawn_failed",
            `The child could not be started (${error.code ?? "error"}).`,
          ),
        );
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.ended === null;
  }

  /** Requests sent so far on this child (each used one ID). */
  get sent(): number {
    return this.nextId;
  }

  call<M extends MethodName>(
    method: M,
    params: ParamsOf<M>,
    options: CallOptions = {},
  ): Promise<ResultOf<M>> {
    if (this.ended) return Promise.reject(this.ended);
    const { signal } = options;
    if (signal?.aborted)
      return Promise.reject(
        new ClientError("aborted", `${method} was aborted before it was sent.`),
      );
    const id = `c${this.nextId + 1}`;
    const line = `${JSON.stringify({ id, method, params })}\n`;
    if (encoder.encode(line).length > LIMITS.frame_bytes)
      return Promise.reject(
        new ClientError("frame_too_large", `${method} params exceed the frame byte limit.`),
      );
    this.nextId += 1; // the ID is spent only by a frame that is sent
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const onAbort = () => this.cancel(id, method);
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        method,
        onNotification: options.onNotification,
        onAnswered: options.onAnswered,
        resolve: (value) => {
          settle();
          resolve(value as ResultOf<M>);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.write(line);
      options.onSent?.(id);
    });
  }

  /** Asks the child to cancel `id`; the original call still settles with its own response. */
  private cancel(id: string, method: MethodName): void {
    const loopMethod = METHODS[method].admission === "loop";
    const canCancel = this.options.capabilities().has("operation.cancel");
    if (!this.pending.has(id) || loopMethod || !canCancel) return;
    // The acknowledgement (or operation_missing when it already finished) carries no outcome.
    this.call("operation.cancel", { request_id: id }).catch(() => {});
  }

  /** From now on an exit is expected (close() is under way). */
  expectExit(): void {
    this.closing = true;
  }

  /** Stops reading frames (shutdown was answered) and closes stdin, which is EOF to the child. */
  silence(): void {
    this.quiet = true;
    this.proc.stdin?.end();
  }

  /** Rejects everything still pending with `reason`; later calls fail with it too. */
  end(reason: ClientError): void {
    if (!this.ended) this.ended = reason;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const call of pending) call.reject(this.ended);
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
  }

  private write(line: string): void {
    this.options.trace?.("out", line.slice(0, -1));
    this.proc.stdin?.write(line);
  }

  private onData(chunk: Buffer): void {
    for (const event of this.splitter.push(chunk)) {
      if (this.quiet || this.ended) return;
      if (event.kind === "oversized") {
        this.violation("a frame over the frame byte limit");
        continue;
      }
      this.options.trace?.("in", Buffer.from(event.bytes).toString("utf8"));
      this.onFrame(event.bytes);
    }
  }

  private onFrame(bytes: Uint8Array): void {
    const response = decodeResponse(bytes);
    if (response.kind === "malformed") return this.violation(response.reason);
    if (response.kind === "notification") return this.onNotification(response);
    if (response.id === null)
      return this.violation(
        `an uncorrelated error (${response.kind === "error" ? response.code : ""})`,
      );
    const call = this.pending.get(response.id);
    if (!call) return this.violation("a response to a request it was never sent");
    this.pending.delete(response.id);
    try {
      call.onAnswered?.(response.kind !== "error");
    } catch {}
    if (response.kind === "error") {
      call.reject(new RemoteError(response.code, response.message, call.method, response.next));
      return;
    }
    // After the shutdown answer nothing more can legitimately follow: stop reading at once,
    // before any later frame of the same chunk is looked at.
    if (call.method === "shutdown") this.silence();
    const checked = METHODS[call.method].result.safeParse(response.result);
    if (checked.success) call.resolve(checked.data);
    else
      call.reject(
        new ClientError(
          "invalid_response",
          `The child's ${call.method} result does not match its schema.`,
        ),
      );
  }

  /**
   * Routes a notification to the call it belongs to. Only a known notification, negotiated,
   * within its schema and naming a pending request of the right method is accepted: anything
   * else is a protocol violation, like a response to a request never sent.
   */
  private onNotification(frame: { method: string; params: Record<string, unknown> }): void {
    if (!isNotificationName(frame.method)) return this.violation("an unknown notification");
    const spec = NOTIFICATIONS[frame.method];
    if (!this.options.capabilities().has(spec.capability))
      return this.violation(`${frame.method} without the ${spec.capability} capability`);
    const checked = spec.params.safeParse(frame.params);
    if (!checked.success) return this.violation(`${frame.method} params outside their schema`);
    const notification = { method: frame.method, params: checked.data } as Notification;
    if (spec.request === null) {
      try {
        this.options.onChildNotification?.(notification);
      } catch {}
      return;
    }
    const call = this.pending.get((checked.data as { request_id: string }).request_id);
    if (call?.method !== spec.request)
      return this.violation(`${frame.method} for a request it is not about`);
    try {
      call.onNotification?.(notification);
    } catch {
      // A listener's own failure is not the child's; see CallOptions.onNotification.
    }
  }

  /** A child that breaks the protocol cannot be trusted with correlation: stop it. */
  private violation(what: string): void {
    this.end(new ClientError("protocol_violation", `The child sent ${what}; it was stopped.`));
    this.kill();
  }
}

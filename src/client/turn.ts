import type { TurnAttachment } from "../protocol/schemas/attachments.js";
import type { TurnCommand } from "../protocol/schemas/skills.js";
import type {
  Decision,
  Permissions,
  TurnEventBody,
  TurnEventParams,
  TurnResult,
} from "../protocol/schemas/turns.js";
import type { Caller } from "./caller.js";
import type { Notification } from "./connection.js";
import { ClientError, RemoteError } from "./errors.js";

/** An `approval_requested` event: what the user is asked to allow. */
export type ApprovalRequest = Extract<TurnEventBody, { type: "approval_requested" }>;

/** A `steer_applied` event: a steer joined the turn's context, before its next model call. */
export type SteerApplied = Extract<TurnEventBody, { type: "steer_applied" }>;

/** A steer the turn accepted and ended before delivering (`undelivered_steers`). */
export type UndeliveredSteer = NonNullable<TurnResult["undelivered_steers"]>[number];

/** A decision with the scope of the edit rule it keeps (docs/turns.md, turn.approve). */
export interface ApprovalChoice {
  decision: Decision;
  path_glob?: string;
}

export interface TurnOptions {
  /** The turn's permissions (the child's default is `ask`). */
  permissions?: Permissions;
  /** Every event of the turn, in `seq` order, all before the turn resolves. Must not throw. */
  onEvent?: (event: TurnEventParams) => void;
  /**
   * Decides an approval; its answer is sent with turn.approve. Without it every approval is
   * denied. A rejection denies too, and the turn then rejects with that error once it ended.
   */
  onApproval?: (
    request: ApprovalRequest,
    event: TurnEventParams,
  ) => Promise<Decision | ApprovalChoice> | Decision | ApprovalChoice;
  /** Aborting sends turn.interrupt; the turn still resolves with its (interrupted) result. */
  signal?: AbortSignal;
  /**
   * Images sent with the input (docs/turns.md, "Attachments"). Needs `attachments`; without it
   * the call rejects `not_negotiated`, unsent.
   */
  attachments?: TurnAttachment[];
}

/** What startTurn takes: the turn's input, its options, and `queue` (capability `turn.queue`). */
export interface StartTurnOptions extends TurnOptions {
  /** The user's words; or, instead, `command`. */
  input?: string;
  /**
   * A custom command (docs/skills.md), expanded by the child into the turn's input; needs
   * `commands` (without it the call rejects `not_negotiated`, unsent). Exactly one of `input`
   * and `command`.
   */
  command?: TurnCommand;
  /**
   * Wait behind the running turn instead of failing `busy` (docs/turns.md, "Steering and
   * queueing"). Needs `turn.queue`; without it the call rejects `not_negotiated`, unsent.
   */
  queue?: boolean;
}

/** A turn that was sent: its result, and what can be said to it while it runs. */
export interface TurnHandle {
  /**
   * The turn's result, the truth. With `turn.steer` it holds `undelivered_steers`: the steers
   * accepted but never delivered, for the user's composer. A queued turn removed before it
   * started resolves `interrupted` with `turn_id: null` and `steps: 0`.
   */
  readonly result: Promise<TurnResult>;
  /**
   * turn.steer: `text` joins the running turn at its next model call boundary (a
   * `steer_applied` event says when), or comes back in `undelivered_steers`. Rejects with
   * RemoteError `turn_missing` when the turn is not running (still queued, or ended), and with
   * ClientError `not_negotiated` without `turn.steer`.
   */
  steer(text: string): Promise<{ steer_id: string }>;
  /** turn.interrupt (a queued turn is removed); the result still resolves, `interrupted`. */
  interrupt(): void;
}

/**
 * Runs one turn: turn.start, its events to `onEvent` (checked gapless by seq), each approval
 * answered through `onApproval` with turn.approve, `signal` turned into turn.interrupt, and the
 * final result as the truth. Answers that come too late (`approval_missing`, `turn_missing`:
 * the turn moved on) are expected and ignored.
 */
export function runTurn(
  client: Caller,
  input: string,
  options: TurnOptions = {},
): Promise<TurnResult> {
  return startTurn(client, { ...options, input }).result;
}

/** Sends turn.start at once and returns its handle (see runTurn for the events and approvals). */
export function startTurn(client: Caller, options: StartTurnOptions): TurnHandle {
  const { signal, input } = options;
  let requestId: string | null = null;
  let ended = false;
  let nextSeq = 0;
  let failure: unknown = null;
  const interrupt = () => {
    if (requestId === null || ended) return;
    client.call("turn.interrupt", { request_id: requestId }).catch(() => {});
  };
  const steer = async (text: string) => {
    if (!client.has("turn.steer"))
      throw new ClientError("not_negotiated", "turn.steer needs the turn.steer capability.");
    if (requestId === null || ended)
      throw new RemoteError("turn_missing", "No running turn has that request ID.", "turn.steer");
    const { steer_id } = await client.call("turn.steer", { request_id: requestId, input: text });
    return { steer_id };
  };
  const decide = async (request: ApprovalRequest, event: TurnEventParams) => {
    let choice: ApprovalChoice = { decision: "deny" };
    try {
      if (options.onApproval) {
        const answer = await options.onApproval(request, event);
        choice = typeof answer === "string" ? { decision: answer } : answer;
      }
    } catch (error) {
      failure ??= error;
    }
    if (ended) return;
    await client
      .call("turn.approve", { approval_id: request.approval_id, ...choice })
      .catch(() => {});
  };
  const onNotification = (notification: Notification) => {
    // A turn's call receives its turn.event notifications only (connection.ts routes them).
    if (notification.method !== "turn.event") return;
    const { params } = notification;
    if (failure === null && params.seq !== nextSeq)
      failure = new ClientError("protocol_violation", "The child's turn events skipped a seq.");
    nextSeq = params.seq + 1;
    try {
      options.onEvent?.(params);
    } catch (error) {
      failure ??= error;
    }
    if (params.event.type === "approval_requested") void decide(params.event, params);
  };
  const run = async (): Promise<TurnResult> => {
    if (signal?.aborted)
      throw new ClientError("aborted", "turn.start was aborted before it was sent.");
    if (options.queue && !client.has("turn.queue"))
      throw new ClientError("not_negotiated", "queue needs the turn.queue capability.");
    if (options.command && !client.has("commands"))
      throw new ClientError("not_negotiated", "command needs the commands capability.");
    if (options.attachments?.length && !client.has("attachments"))
      throw new ClientError("not_negotiated", "attachments needs the attachments capability.");
    signal?.addEventListener("abort", interrupt, { once: true });
    try {
      const params = {
        ...(options.command ? { command: options.command } : { input }),
        ...(options.permissions ? { permissions: options.permissions } : {}),
        ...(options.queue ? { queue: true } : {}),
        ...(options.attachments?.length ? { attachments: options.attachments } : {}),
      };
      const result = await client.call("turn.start", params, {
        onSent: (id) => {
          requestId = id;
        },
        onNotification,
      });
      if (failure !== null) throw failure;
      return result;
    } finally {
      ended = true;
      signal?.removeEventListener("abort", interrupt);
    }
  };
  return { result: run(), steer, interrupt };
}

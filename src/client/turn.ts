import type {
  Decision,
  Permissions,
  TurnEventBody,
  TurnEventParams,
  TurnResult,
} from "../protocol/schemas/turns.js";
import type { Caller } from "./caller.js";
import type { Notification } from "./connection.js";
import { ClientError } from "./errors.js";

/** An `approval_requested` event: what the user is asked to allow. */
export type ApprovalRequest = Extract<TurnEventBody, { type: "approval_requested" }>;

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
}

/**
 * Runs one turn: turn.start, its events to `onEvent` (checked gapless by seq), each approval
 * answered through `onApproval` with turn.approve, `signal` turned into turn.interrupt, and the
 * final result as the truth. Answers that come too late (`approval_missing`, `turn_missing`:
 * the turn moved on) are expected and ignored.
 */
export async function runTurn(
  client: Caller,
  input: string,
  options: TurnOptions = {},
): Promise<TurnResult> {
  const { signal } = options;
  if (signal?.aborted)
    throw new ClientError("aborted", "turn.start was aborted before it was sent.");
  let requestId: string | null = null;
  let ended = false;
  let nextSeq = 0;
  let failure: unknown = null;
  const interrupt = () => {
    if (requestId === null || ended) return;
    client.call("turn.interrupt", { request_id: requestId }).catch(() => {});
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
  signal?.addEventListener("abort", interrupt, { once: true });
  try {
    const params = options.permissions ? { input, permissions: options.permissions } : { input };
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
}

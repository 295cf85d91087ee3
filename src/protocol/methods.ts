import type { z } from "zod";
import { TurnRevertParams, TurnRevertResult } from "./schemas/checkpoints.js";
import { CursorParams, EmptyParams } from "./schemas/common.js";
import { SessionForkParams, SessionForkResult } from "./schemas/fork.js";
import {
  CancelParams,
  CancelResult,
  InitializeParams,
  InitializeResult,
  ShutdownResult,
  StatusResult,
  TestSleepParams,
  TestSleepResult,
} from "./schemas/lifecycle.js";
import { McpChangedParams, McpStatusResult } from "./schemas/mcp.js";
import {
  ModelCatalogParams,
  ModelCatalogResult,
  ModelCatalogStatusParams,
  ModelCatalogStatusResult,
  ModelRefreshParams,
  ModelRefreshResult,
  ModelSelectParams,
  ModelSelectResult,
} from "./schemas/models.js";
import { ApprovalRulesParams, ApprovalRulesResult } from "./schemas/rules.js";
import {
  SessionCreateParams,
  SessionCreateResult,
  SessionDiscoverParams,
  SessionDiscoverResult,
  SessionHistoryParams,
  SessionHistoryResult,
  SessionListParams,
  SessionListResult,
  SessionOpenParams,
  SessionOpenResult,
  SessionRecordParams,
  SessionRecordResult,
} from "./schemas/sessions.js";
import { ModelCachedResult, SettingsCheckResult } from "./schemas/settings.js";
import {
  TurnApproveParams,
  TurnApproveResult,
  TurnEventParams,
  TurnInterruptParams,
  TurnInterruptResult,
  TurnResult,
  TurnStartParams,
} from "./schemas/turns.js";

/**
 * How a method is admitted:
 * - `loop`: answered at once on the protocol loop, never counted or remembered (status, shutdown);
 * - `initialize`: the handshake;
 * - `control`: answered at once, counted, exempt from the active bound (operation.cancel,
 *   turn.interrupt, turn.approve);
 * - `worker`: the single session worker, `busy` while it runs;
 * - `turn`: the session worker too, but never cancelled by operation.cancel (only by shutdown or
 *   EOF), and its handler's result is always the answer: a turn ends with its own result;
 * - `listing`: runs beside the worker, bounded only by the active limit;
 * - `scan`: like listing, but one at a time (session.discover).
 */
export type Admission = "loop" | "initialize" | "control" | "worker" | "turn" | "listing" | "scan";

/** A request: sent by the client, answered by the child with exactly one response. */
export interface MethodSpec {
  params: z.ZodType;
  result: z.ZodType;
  /** The capability that makes it callable (src/protocol/capabilities.ts derives the list). */
  capability: string | null;
  admission: Admission;
  /** Reachable only in test builds (MC_AGENT_TEST_METHODS=1); absent from the schema and docs. */
  testOnly?: boolean;
}

/**
 * The one table of requests (client to child): dispatch, capability checks, the JSON Schema and
 * the SDK read it. Notifications (child to client) are in NOTIFICATIONS below.
 */
export const METHODS = {
  initialize: {
    params: InitializeParams,
    result: InitializeResult,
    capability: null,
    admission: "initialize",
  },
  status: { params: EmptyParams, result: StatusResult, capability: null, admission: "loop" },
  shutdown: { params: EmptyParams, result: ShutdownResult, capability: null, admission: "loop" },
  "operation.cancel": {
    params: CancelParams,
    result: CancelResult,
    capability: "operation.cancel",
    admission: "control",
  },
  "session.list": {
    params: SessionListParams,
    result: SessionListResult,
    capability: "session.list",
    admission: "listing",
  },
  "session.discover": {
    params: SessionDiscoverParams,
    result: SessionDiscoverResult,
    capability: "session.discover",
    admission: "scan",
  },
  "session.create": {
    params: SessionCreateParams,
    result: SessionCreateResult,
    capability: "session.create",
    admission: "worker",
  },
  "session.open": {
    params: SessionOpenParams,
    result: SessionOpenResult,
    capability: "session.open",
    admission: "worker",
  },
  "session.fork": {
    params: SessionForkParams,
    result: SessionForkResult,
    capability: "session.fork",
    admission: "worker",
  },
  "session.history": {
    params: SessionHistoryParams,
    result: SessionHistoryResult,
    capability: "session.history",
    admission: "listing",
  },
  "session.record": {
    params: SessionRecordParams,
    result: SessionRecordResult,
    capability: "session.record",
    admission: "listing",
  },
  "model.catalog": {
    params: ModelCatalogParams,
    result: ModelCatalogResult,
    capability: "model.catalog",
    admission: "listing",
  },
  "model.catalog.status": {
    params: ModelCatalogStatusParams,
    result: ModelCatalogStatusResult,
    capability: "model.catalog.status",
    admission: "listing",
  },
  "model.select": {
    params: ModelSelectParams,
    result: ModelSelectResult,
    capability: "model.select",
    admission: "worker",
  },
  "model.refresh": {
    params: ModelRefreshParams,
    result: ModelRefreshResult,
    capability: "model.refresh",
    admission: "worker",
  },
  "model.cached": {
    params: CursorParams,
    result: ModelCachedResult,
    capability: "model.cached",
    admission: "listing",
  },
  "settings.check": {
    params: EmptyParams,
    result: SettingsCheckResult,
    capability: "settings.check",
    admission: "listing",
  },
  "turn.start": {
    params: TurnStartParams,
    result: TurnResult,
    capability: "turn",
    admission: "turn",
  },
  "turn.interrupt": {
    params: TurnInterruptParams,
    result: TurnInterruptResult,
    capability: "turn",
    admission: "control",
  },
  "turn.approve": {
    params: TurnApproveParams,
    result: TurnApproveResult,
    capability: "turn",
    admission: "control",
  },
  "approval.rules": {
    params: ApprovalRulesParams,
    result: ApprovalRulesResult,
    capability: "turn",
    admission: "listing",
  },
  "mcp.status": {
    params: EmptyParams,
    result: McpStatusResult,
    capability: "mcp",
    admission: "listing",
  },
  "turn.revert": {
    params: TurnRevertParams,
    result: TurnRevertResult,
    capability: "turn.revert",
    admission: "worker",
  },
  "test.sleep": {
    params: TestSleepParams,
    result: TestSleepResult,
    capability: null,
    admission: "listing",
    testOnly: true,
  },
  "test.sleep_worker": {
    params: TestSleepParams,
    result: TestSleepResult,
    capability: null,
    admission: "worker",
    testOnly: true,
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;
export type ParamsOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["params"]>;
export type ResultOf<M extends MethodName> = z.infer<(typeof METHODS)[M]["result"]>;

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}

/** Methods a production child or client may use (test-only ones excluded). */
export const PUBLIC_METHOD_NAMES = (Object.keys(METHODS) as MethodName[]).filter(
  (name) => !(METHODS[name] as MethodSpec).testOnly,
);

/** A notification: written by the child, `{"method", "params"}` with no `id`, never answered. */
export interface NotificationSpec {
  params: z.ZodType;
  /** Never written unless this capability was negotiated. */
  capability: string;
  /**
   * The request it belongs to: its params' `request_id` names an active request of this method.
   * Null for a notification about the child itself (`mcp.changed`), written whenever it happens
   * once the capability was negotiated.
   */
  request: MethodName | null;
}

/** The one table of notifications (child to client). Clients never send any. */
export const NOTIFICATIONS = {
  "turn.event": { params: TurnEventParams, capability: "turn", request: "turn.start" },
  "mcp.changed": { params: McpChangedParams, capability: "mcp", request: null },
} as const satisfies Record<string, NotificationSpec>;

export type NotificationName = keyof typeof NOTIFICATIONS;
export type NotificationParamsOf<N extends NotificationName> = z.infer<
  (typeof NOTIFICATIONS)[N]["params"]
>;

export function isNotificationName(name: string): name is NotificationName {
  return Object.hasOwn(NOTIFICATIONS, name);
}

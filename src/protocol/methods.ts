import type { z } from "zod";
import type { Lazy } from "./lazy.js";
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
  TestSchemasResult,
  TestSleepParams,
  TestSleepResult,
} from "./schemas/lifecycle.js";
import {
  SessionArchivedResult,
  SessionArchiveParams,
  SessionArchiveResult,
  SessionDeleteParams,
  SessionDeleteResult,
  SessionRenameParams,
  SessionRenameResult,
  SessionUnarchiveParams,
  SessionUnarchiveResult,
  SessionUsageParams,
  SessionUsageResult,
} from "./schemas/manage.js";
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
import { SessionSearchParams, SessionSearchResult } from "./schemas/search.js";
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
import {
  ModelCachedResult,
  SettingsCheckResult,
  WorkspaceTrustParams,
  WorkspaceTrustResult,
} from "./schemas/settings.js";
import { CommandsListResult } from "./schemas/skills.js";
import { TurnSteerResult } from "./schemas/steering.js";
import { SessionSubagentHistoryParams, SessionSubagentHistoryResult } from "./schemas/subagents.js";
import {
  TurnApproveParams,
  TurnApproveResult,
  TurnEventParams,
  TurnInterruptParams,
  TurnInterruptResult,
  TurnResult,
  TurnStartParams,
  TurnSteerParams,
} from "./schemas/turns.js";

/**
 * How a method is admitted:
 * - `loop`: answered at once on the protocol loop, never counted or remembered (status, shutdown);
 * - `initialize`: the handshake;
 * - `control`: answered at once, counted, exempt from the active bound (operation.cancel,
 *   turn.interrupt, turn.steer, turn.approve);
 * - `worker`: the single session worker, `busy` while it runs;
 * - `turn`: the session worker too, but never cancelled by operation.cancel (only by shutdown or
 *   EOF), and its handler's result is always the answer: a turn ends with its own result;
 * - `listing`: runs beside the worker, bounded only by the active limit;
 * - `scan`: like listing, but one at a time (session.discover).
 */
export type Admission = "loop" | "initialize" | "control" | "worker" | "turn" | "listing" | "scan";

/** A request: sent by the client, answered by the child with exactly one response. */
export interface MethodSpec {
  /** A getter: the schema is built on first read (lazy.ts), not when this table is. */
  readonly params: z.ZodType;
  readonly result: z.ZodType;
  /** The capability that makes it callable (src/protocol/capabilities.ts derives the list). */
  capability: string | null;
  admission: Admission;
  /** Reachable only in test builds (MC_AGENT_TEST_METHODS=1); absent from the schema and docs. */
  testOnly?: boolean;
}

type Rest<Spec> = Omit<Spec, "params" | "result">;

/**
 * A table entry whose `params` and `result` are getters of the lazy schemas: each reader sees
 * the schema itself (`METHODS[m].params.parse(...)`), and a method's schemas are built when they
 * are first read, so the child's start builds only those of initialize, status and shutdown.
 */
function method<P extends z.ZodType, R extends z.ZodType, const O extends Rest<MethodSpec>>(
  params: Lazy<P>,
  result: Lazy<R>,
  rest: O,
): { readonly params: P; readonly result: R } & O {
  return Object.freeze(
    Object.defineProperties(
      { ...rest },
      { params: { get: params, enumerable: true }, result: { get: result, enumerable: true } },
    ),
  ) as { readonly params: P; readonly result: R } & O;
}

/**
 * The one table of requests (client to child): dispatch, capability checks, the JSON Schema and
 * the SDK read it. Notifications (child to client) are in NOTIFICATIONS below.
 */
export const METHODS = {
  initialize: method(InitializeParams, InitializeResult, {
    capability: null,
    admission: "initialize",
  }),
  status: method(EmptyParams, StatusResult, { capability: null, admission: "loop" }),
  shutdown: method(EmptyParams, ShutdownResult, { capability: null, admission: "loop" }),
  "operation.cancel": method(CancelParams, CancelResult, {
    capability: "operation.cancel",
    admission: "control",
  }),
  "session.list": method(SessionListParams, SessionListResult, {
    capability: "session.list",
    admission: "listing",
  }),
  "session.discover": method(SessionDiscoverParams, SessionDiscoverResult, {
    capability: "session.discover",
    admission: "scan",
  }),
  "session.search": method(SessionSearchParams, SessionSearchResult, {
    capability: "session.search",
    admission: "scan",
  }),
  "session.create": method(SessionCreateParams, SessionCreateResult, {
    capability: "session.create",
    admission: "worker",
  }),
  "session.open": method(SessionOpenParams, SessionOpenResult, {
    capability: "session.open",
    admission: "worker",
  }),
  "session.fork": method(SessionForkParams, SessionForkResult, {
    capability: "session.fork",
    admission: "worker",
  }),
  "session.rename": method(SessionRenameParams, SessionRenameResult, {
    capability: "session.manage",
    admission: "worker",
  }),
  "session.archive": method(SessionArchiveParams, SessionArchiveResult, {
    capability: "session.manage",
    admission: "worker",
  }),
  "session.unarchive": method(SessionUnarchiveParams, SessionUnarchiveResult, {
    capability: "session.manage",
    admission: "worker",
  }),
  "session.archived": method(CursorParams, SessionArchivedResult, {
    capability: "session.manage",
    admission: "scan",
  }),
  "session.delete": method(SessionDeleteParams, SessionDeleteResult, {
    capability: "session.manage",
    admission: "worker",
  }),
  "session.usage": method(SessionUsageParams, SessionUsageResult, {
    capability: "session.manage",
    admission: "listing",
  }),
  "session.history": method(SessionHistoryParams, SessionHistoryResult, {
    capability: "session.history",
    admission: "listing",
  }),
  "session.subagent_history": method(SessionSubagentHistoryParams, SessionSubagentHistoryResult, {
    capability: "subagents",
    admission: "listing",
  }),
  "session.record": method(SessionRecordParams, SessionRecordResult, {
    capability: "session.record",
    admission: "listing",
  }),
  "model.catalog": method(ModelCatalogParams, ModelCatalogResult, {
    capability: "model.catalog",
    admission: "listing",
  }),
  "model.catalog.status": method(ModelCatalogStatusParams, ModelCatalogStatusResult, {
    capability: "model.catalog.status",
    admission: "listing",
  }),
  "model.select": method(ModelSelectParams, ModelSelectResult, {
    capability: "model.select",
    admission: "worker",
  }),
  "model.refresh": method(ModelRefreshParams, ModelRefreshResult, {
    capability: "model.refresh",
    admission: "worker",
  }),
  "model.cached": method(CursorParams, ModelCachedResult, {
    capability: "model.cached",
    admission: "listing",
  }),
  "settings.check": method(EmptyParams, SettingsCheckResult, {
    capability: "settings.check",
    admission: "listing",
  }),
  "workspace.trust": method(WorkspaceTrustParams, WorkspaceTrustResult, {
    capability: "workspace.trust",
    admission: "listing",
  }),
  "commands.list": method(EmptyParams, CommandsListResult, {
    capability: "commands",
    admission: "listing",
  }),
  "turn.start": method(TurnStartParams, TurnResult, { capability: "turn", admission: "turn" }),
  "turn.interrupt": method(TurnInterruptParams, TurnInterruptResult, {
    capability: "turn",
    admission: "control",
  }),
  "turn.steer": method(TurnSteerParams, TurnSteerResult, {
    capability: "turn.steer",
    admission: "control",
  }),
  "turn.approve": method(TurnApproveParams, TurnApproveResult, {
    capability: "turn",
    admission: "control",
  }),
  "approval.rules": method(ApprovalRulesParams, ApprovalRulesResult, {
    capability: "turn",
    admission: "listing",
  }),
  "mcp.status": method(EmptyParams, McpStatusResult, { capability: "mcp", admission: "listing" }),
  "turn.revert": method(TurnRevertParams, TurnRevertResult, {
    capability: "turn.revert",
    admission: "worker",
  }),
  "test.sleep": method(TestSleepParams, TestSleepResult, {
    capability: null,
    admission: "listing",
    testOnly: true,
  }),
  "test.sleep_worker": method(TestSleepParams, TestSleepResult, {
    capability: null,
    admission: "worker",
    testOnly: true,
  }),
  "test.schemas": method(EmptyParams, TestSchemasResult, {
    capability: null,
    admission: "listing",
    testOnly: true,
  }),
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
  /** A getter, as MethodSpec's. */
  readonly params: z.ZodType;
  /** Never written unless this capability was negotiated. */
  capability: string;
  /**
   * The request it belongs to: its params' `request_id` names an active request of this method.
   * Null for a notification about the child itself (`mcp.changed`), written whenever it happens
   * once the capability was negotiated.
   */
  request: MethodName | null;
}

/** A notification's entry, its `params` a getter as a method's (see `method`). */
function notification<P extends z.ZodType, const O extends Rest<NotificationSpec>>(
  params: Lazy<P>,
  rest: O,
): { readonly params: P } & O {
  return Object.freeze(
    Object.defineProperties({ ...rest }, { params: { get: params, enumerable: true } }),
  ) as { readonly params: P } & O;
}

/** The one table of notifications (child to client). Clients never send any. */
export const NOTIFICATIONS = {
  "turn.event": notification(TurnEventParams, { capability: "turn", request: "turn.start" }),
  "mcp.changed": notification(McpChangedParams, { capability: "mcp", request: null }),
} as const satisfies Record<string, NotificationSpec>;

export type NotificationName = keyof typeof NOTIFICATIONS;
export type NotificationParamsOf<N extends NotificationName> = z.infer<
  (typeof NOTIFICATIONS)[N]["params"]
>;

export function isNotificationName(name: string): name is NotificationName {
  return Object.hasOwn(NOTIFICATIONS, name);
}

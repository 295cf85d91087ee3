/**
 * mc-agent/client: a typed SDK for any backend child that speaks local-agent stdio v1.
 *
 *   const client = await AgentClient.spawn({ cwd, capabilities: ["session.discover"] });
 *   const { sessions } = await client.discoverSessions();
 *   await client.close();
 */

export type { Capability } from "../protocol/capabilities.js";
export type { ErrorCode } from "../protocol/codes.js";
export type { MethodName, ParamsOf, ResultOf } from "../protocol/methods.js";
export { type NextStep, type NextStepName, nextStepForModel } from "../protocol/recovery.js";
export type {
  RevertFile,
  TurnRevertParams,
  TurnRevertResult,
} from "../protocol/schemas/checkpoints.js";
export type { ForkedFrom, SessionForkResult } from "../protocol/schemas/fork.js";
export type {
  McpError,
  McpServerStatus,
  McpState,
  McpStatusResult,
} from "../protocol/schemas/mcp.js";
export type {
  ModelChoice,
  ModelRefreshResult,
  ProviderStatus,
} from "../protocol/schemas/models.js";
export type { SessionEntry, SessionEvent, SessionNotice } from "../protocol/schemas/sessions.js";
export type {
  CachedModel,
  CachedProvider,
  SettingsCheckResult,
  SettingsFileCheck,
} from "../protocol/schemas/settings.js";
export type {
  Decision,
  Permissions,
  TurnEventBody,
  TurnEventParams,
  TurnResult,
} from "../protocol/schemas/turns.js";
export type { Caller } from "./caller.js";
export type { CatalogGuard, CatalogRead, CatalogStatusRead } from "./catalog.js";
export { CATALOG_READ_ATTEMPTS } from "./catalog.js";
export { AgentClient } from "./client.js";
export type { CallOptions, Notification, Tracer } from "./connection.js";
export type { DiscoveryEvent, DiscoveryOptions, DiscoveryResult } from "./discovery.js";
export {
  CLIENT_ERROR_CODES,
  ClientError,
  type ClientErrorCode,
  errorCodeOf,
  isRemote,
  RemoteError,
} from "./errors.js";
export {
  adviceFor,
  type Explanation,
  explain,
  explainRefresh,
  RECOVERY_ACTIONS,
} from "./explain.js";
export type {
  DiscoverExtension,
  Limits,
  Negotiated,
  RefreshExtension,
  TurnExtension,
} from "./negotiate.js";
export { adviceForStep, explainNotice } from "./next-step-advice.js";
export { MAX_OPTIONAL } from "./optional.js";
export { isRecordStub, RECORD_TEXT_BYTES, readRecord, readSubagentRecord } from "./record.js";
export type { RefreshReport } from "./refresh.js";
export type { RevertOptions } from "./revert.js";
export { SEARCH_RESTARTS, type SearchHit, type SearchOptions, searchSessions } from "./search.js";
export {
  type CachedRead,
  homeOf,
  invalidFiles,
  readCached,
  settingsFilePath,
} from "./settings.js";
export { DEFAULT_COMMAND, type SpawnOptions } from "./spawn.js";
export type {
  ApprovalChoice,
  ApprovalRequest,
  StartTurnOptions,
  SteerApplied,
  TurnHandle,
  TurnOptions,
  UndeliveredSteer,
} from "./turn.js";
export { adviceForTurn, type TurnFailureCode } from "./turn-advice.js";

import { AgentClient } from "./client.js";
import type { SpawnOptions } from "./spawn.js";

/** `spawn(options)`: the same as `AgentClient.spawn(options)`. */
export function spawn(options: SpawnOptions): Promise<AgentClient> {
  return AgentClient.spawn(options);
}

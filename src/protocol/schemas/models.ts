import { z } from "zod";
import { Cursor, CursorParams, Effort, ModelId, ProviderId } from "./common.js";
import { Selection } from "./lifecycle.js";

export const ModelChoice = z.strictObject({
  id: ModelId,
  provider: ProviderId,
  model: ModelId,
  name: z.string().nullable(),
  efforts: z.array(Effort),
  default_effort: Effort.nullable(),
  selectable: z.literal(true),
});

export const CatalogNotice = z.discriminatedUnion("code", [
  z.strictObject({ code: z.literal("catalog_missing"), provider: ProviderId }),
  z.strictObject({ code: z.literal("catalog_invalid"), provider: ProviderId }),
  z.strictObject({ code: z.literal("configuration_invalid") }),
]);

export const ModelCatalogParams = CursorParams;
const catalogFields = {
  revision: z.string().min(1).max(64),
  choices: z.array(ModelChoice),
  selection: Selection,
  notices: z.array(CatalogNotice),
  cursor: Cursor.nullable(),
  complete: z.boolean(),
};
export const ModelCatalogResult = z.strictObject(catalogFields);

export const CATALOG_STATUSES = [
  "available",
  "missing_cache",
  "empty_cache",
  "invalid_format",
  "invalid_schema",
  "incompatible_fingerprint",
] as const;
export const CatalogStatus = z.enum(CATALOG_STATUSES);
export const AUTHENTICATION_STATES = [
  "ready",
  "authentication_unavailable",
  "not_checked",
] as const;
export const AuthenticationState = z.enum(AUTHENTICATION_STATES);
export const CATALOG_RECOVERIES = [
  "none",
  "configure_authentication",
  "refresh_catalog",
  "enable_models_and_restart",
] as const;
export const CatalogRecovery = z.enum(CATALOG_RECOVERIES);

export const ProviderStatus = z.strictObject({
  provider: ProviderId,
  catalog_status: CatalogStatus,
  authentication: AuthenticationState,
  relevant: z.boolean(),
  recovery: CatalogRecovery,
});

export const ModelCatalogStatusParams = CursorParams;
export const ModelCatalogStatusResult = z.strictObject({
  ...catalogFields,
  configuration_reload: z.literal("restart_child"),
  providers: z.array(ProviderStatus).max(32),
});

export const ModelSelectParams = z.strictObject({
  model: ModelId,
  effort: Effort.nullable(),
  catalog_revision: z.string().min(1).max(64),
});
export const ModelSelectResult = z.strictObject({ selection: Selection });

export const REFRESH_REASONS = [
  "authentication_unavailable",
  "authentication_rejected",
  "configuration_invalid",
  "remote_unavailable",
  "remote_timeout",
  "rate_limited",
  "empty_catalog",
  "invalid_catalog",
  "catalog_limit",
  "cache_write_failed",
] as const;
export const RefreshReason = z.enum(REFRESH_REASONS);

export const ModelRefreshParams = z.strictObject({
  provider: ProviderId,
});
export const ModelRefreshResult = z.strictObject({
  provider: ProviderId,
  outcome: z.enum(["refreshed", "failed"]),
  reason: RefreshReason.nullable(),
  catalog_revision: z.string().nullable(),
  catalog_error: z.string().nullable(),
  recovery: z.literal("reload_catalog"),
  configuration_reload: z.literal("restart_child"),
  selection_unchanged: z.literal(true),
});

export type ModelChoice = z.infer<typeof ModelChoice>;
export type CatalogNotice = z.infer<typeof CatalogNotice>;
export type CatalogStatus = z.infer<typeof CatalogStatus>;
export type AuthenticationState = z.infer<typeof AuthenticationState>;
export type CatalogRecovery = z.infer<typeof CatalogRecovery>;
export type ProviderStatus = z.infer<typeof ProviderStatus>;
export type ModelCatalogResult = z.infer<typeof ModelCatalogResult>;
export type ModelCatalogStatusResult = z.infer<typeof ModelCatalogStatusResult>;
export type ModelRefreshResult = z.infer<typeof ModelRefreshResult>;
export type RefreshReason = z.infer<typeof RefreshReason>;

import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, CursorParams, Effort, ModelId, ProviderId, SettingsFile } from "./common.js";
import { Selection } from "./lifecycle.js";

export const ModelChoice = lazy(() =>
  z.strictObject({
    id: ModelId(),
    provider: ProviderId(),
    model: ModelId(),
    name: z.string().nullable(),
    efforts: z.array(Effort()),
    default_effort: Effort().nullable(),
    selectable: z.literal(true),
  }),
);

/** A catalog notice's step under `errors.recovery`: credentials first, then the refresh. */
export const NoticeRecovery = lazy(() => z.enum(["configure_authentication", "refresh_catalog"]));

export const CatalogNotice = lazy(() =>
  z.discriminatedUnion("code", [
    z.strictObject({
      code: z.literal("catalog_missing"),
      provider: ProviderId(),
      recovery: NoticeRecovery().optional(),
    }),
    z.strictObject({
      code: z.literal("catalog_invalid"),
      provider: ProviderId(),
      recovery: NoticeRecovery().optional(),
    }),
    z.strictObject({
      code: z.literal("configuration_invalid"),
      recovery: z.literal("run_setup").optional(),
      settings: SettingsFile().optional(),
    }),
  ]),
);

export const ModelCatalogParams = CursorParams;
const catalogFields = lazy(() => ({
  revision: z.string().min(1).max(64),
  choices: z.array(ModelChoice()),
  selection: Selection(),
  notices: z.array(CatalogNotice()),
  cursor: Cursor().nullable(),
  complete: z.boolean(),
}));
export const ModelCatalogResult = lazy(() => z.strictObject(catalogFields()));

export const CATALOG_STATUSES = [
  "available",
  "missing_cache",
  "empty_cache",
  "invalid_format",
  "invalid_schema",
  "incompatible_fingerprint",
] as const;
export const CatalogStatus = lazy(() => z.enum(CATALOG_STATUSES));
export const AUTHENTICATION_STATES = [
  "ready",
  "authentication_unavailable",
  "not_checked",
] as const;
export const AuthenticationState = lazy(() => z.enum(AUTHENTICATION_STATES));
export const CATALOG_RECOVERIES = [
  "none",
  "configure_authentication",
  "refresh_catalog",
  "enable_models_and_restart",
] as const;
export const CatalogRecovery = lazy(() => z.enum(CATALOG_RECOVERIES));

export const ProviderStatus = lazy(() =>
  z.strictObject({
    provider: ProviderId(),
    catalog_status: CatalogStatus(),
    authentication: AuthenticationState(),
    relevant: z.boolean(),
    recovery: CatalogRecovery(),
  }),
);

export const ModelCatalogStatusParams = CursorParams;
export const ModelCatalogStatusResult = lazy(() =>
  z.strictObject({
    ...catalogFields(),
    configuration_reload: z.literal("restart_child"),
    providers: z.array(ProviderStatus()).max(32),
  }),
);

export const ModelSelectParams = lazy(() =>
  z.strictObject({
    model: ModelId(),
    effort: Effort().nullable(),
    catalog_revision: z.string().min(1).max(64),
  }),
);
export const ModelSelectResult = lazy(() => z.strictObject({ selection: Selection() }));

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
export const RefreshReason = lazy(() => z.enum(REFRESH_REASONS));

export const ModelRefreshParams = lazy(() =>
  z.strictObject({
    provider: ProviderId(),
  }),
);
export const ModelRefreshResult = lazy(() =>
  z.strictObject({
    provider: ProviderId(),
    outcome: z.enum(["refreshed", "failed"]),
    reason: RefreshReason().nullable(),
    catalog_revision: z.string().nullable(),
    catalog_error: z.string().nullable(),
    recovery: z.literal("reload_catalog"),
    configuration_reload: z.literal("restart_child"),
    selection_unchanged: z.literal(true),
  }),
);

export type ModelChoice = Infer<typeof ModelChoice>;
export type CatalogNotice = Infer<typeof CatalogNotice>;
export type CatalogStatus = Infer<typeof CatalogStatus>;
export type AuthenticationState = Infer<typeof AuthenticationState>;
export type CatalogRecovery = Infer<typeof CatalogRecovery>;
export type ProviderStatus = Infer<typeof ProviderStatus>;
export type ModelCatalogResult = Infer<typeof ModelCatalogResult>;
export type ModelCatalogStatusResult = Infer<typeof ModelCatalogStatusResult>;
export type ModelRefreshResult = Infer<typeof ModelRefreshResult>;
export type RefreshReason = Infer<typeof RefreshReason>;

import { z } from "zod";
import { type Infer, lazy } from "../lazy.js";
import { Cursor, ModelId, ProviderId, SettingsFile } from "./common.js";
import { CatalogStatus } from "./models.js";
import { CommandProblem, PROBLEMS_LISTED, SkillProblem } from "./skills.js";

/** `settings.check` (docs/extensions.md): what the child made of each settings file at start. */
const SETTINGS_STATES = ["absent", "valid", "invalid"] as const;
const SETTINGS_FAULTS = [
  "syntax",
  "encoding",
  "schema",
  "too_large",
  "not_regular",
  "unreadable",
] as const;

export const SettingsFileCheck = lazy(() =>
  z.strictObject({
    file: SettingsFile(),
    state: z.enum(SETTINGS_STATES),
    /** Null unless invalid. Never a path, a name or a value from the file: rule names only. */
    reason: z.enum(SETTINGS_FAULTS).nullable(),
    rule: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .nullable(),
    line: z.number().int().min(1).nullable(),
    column: z.number().int().min(1).nullable(),
  }),
);

/**
 * Whether the project file's `hooks` and `mcp_servers` may run (docs/trust.md): `trusted` (or
 * nothing to trust), `untrusted`, or `changed` since the user trusted them.
 */
export const TrustState = lazy(() => z.enum(["trusted", "untrusted", "changed"]));

export const SettingsCheckResult = lazy(() =>
  z.strictObject({
    /** MC_HOME itself: a folder, not there yet, or something else (a plain file). */
    home: z.enum(["folder", "absent", "not_a_folder"]),
    files: z.array(SettingsFileCheck()).length(2),
    /** With `workspace.trust` only: the workspace's trust as this child read it at start. */
    trust: TrustState().optional(),
    /** With `skills` only: the skills left out, and why (docs/skills.md). */
    skill_problems: z.array(SkillProblem()).max(PROBLEMS_LISTED).optional(),
    /** With `commands` only: the command files left out, and why (docs/skills.md). */
    command_problems: z.array(CommandProblem()).max(PROBLEMS_LISTED).optional(),
    configuration_reload: z.literal("restart_child"),
  }),
);

/** `workspace.trust` (docs/trust.md): trust or revoke this workspace's project code. */
export const WorkspaceTrustParams = lazy(() => z.strictObject({ trusted: z.boolean() }));

export const WorkspaceTrustResult = lazy(() =>
  z.strictObject({
    /** The trust a new child of this workspace will start with. */
    trust: TrustState(),
    configuration_reload: z.literal("restart_child"),
  }),
);

/** `model.cached`: every ID in every valid cache, and enabled models such a cache lacks. */
const CACHED_STATES = ["enabled", "not_enabled", "enabled_missing"] as const;
export const CachedModel = lazy(() =>
  z.strictObject({
    id: ModelId(),
    provider: ProviderId(),
    model: ModelId(),
    name: z.string().nullable(),
    context_window: z.number().int().nullable(),
    state: z.enum(CACHED_STATES),
  }),
);

export const CachedProvider = lazy(() =>
  z.strictObject({
    provider: ProviderId(),
    catalog_status: CatalogStatus(),
    models: z.number().int().min(0),
  }),
);

export const ModelCachedResult = lazy(() =>
  z.strictObject({
    revision: z.string().min(1).max(64),
    providers: z.array(CachedProvider()).max(32),
    models: z.array(CachedModel()),
    cursor: Cursor().nullable(),
    complete: z.boolean(),
  }),
);

export type SettingsFileCheck = Infer<typeof SettingsFileCheck>;
export type SettingsCheckResult = Infer<typeof SettingsCheckResult>;
export type TrustState = Infer<typeof TrustState>;
export type WorkspaceTrustResult = Infer<typeof WorkspaceTrustResult>;
export type CachedModel = Infer<typeof CachedModel>;
export type CachedProvider = Infer<typeof CachedProvider>;
export type ModelCachedResult = Infer<typeof ModelCachedResult>;

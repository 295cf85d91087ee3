import { join } from "node:path";
import { z } from "zod";
import { readRegularFileSync, type SafeRead, UnsafeStoreFile } from "./safe-read.js";

/**
 * Settings: `MC_HOME/config.json` (global) and `<cwd>/.mc/config.json` (project preferences).
 * Read once at child start; a changed file needs a child restart.
 */

// The protocol's safe-name patterns, restated because the store imports nothing outside itself.
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
const EFFORT = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Settings files larger than this are invalid (they are a few hundred bytes in practice). */
export const SETTINGS_BYTES = 1_048_576;
/** Built-ins count towards this: `model.catalog.status` reports at most 32 providers. */
export const MAX_PROVIDERS = 32;
export const MAX_ENABLED_MODELS = 2048;

export const BUILT_IN_PROVIDERS = ["openai", "anthropic", "codex"] as const;
export const PROVIDER_TYPES = ["openai-compatible", "openai", "anthropic", "codex"] as const;

const Url = z.string().min(1).max(2048);

export const ProviderSettings = z.strictObject({
  type: z.enum(PROVIDER_TYPES).optional(),
  base_url: Url.optional(),
  api_key_env: z.string().regex(ENV_NAME).optional(),
  token_url: Url.optional(),
});

export const GlobalSettings = z
  .strictObject({
    providers: z.record(z.string().regex(PROVIDER_ID), ProviderSettings).optional(),
    enabled_models: z.array(z.string().regex(MODEL_ID)).max(MAX_ENABLED_MODELS).optional(),
    model: z.string().regex(MODEL_ID).optional(),
    effort: z.string().regex(EFFORT).optional(),
    models_dev_url: Url.optional(),
    /** The OS sandbox of the `sandboxed` permission level (docs/tools.md, "The sandbox"). */
    sandbox: z.strictObject({ network: z.boolean().optional() }).optional(),
  })
  .superRefine(checkProviders);

export const ProjectSettings = z.strictObject({
  model: z.string().regex(MODEL_ID).optional(),
  effort: z.string().regex(EFFORT).optional(),
});

export type ProviderSettings = z.infer<typeof ProviderSettings>;
export type GlobalSettings = z.infer<typeof GlobalSettings>;
export type ProjectSettings = z.infer<typeof ProjectSettings>;

/** Cross-field rules a record schema cannot say on its own. */
function checkProviders(settings: GlobalSettings, ctx: z.RefinementCtx): void {
  const providers = settings.providers ?? {};
  const builtIns: readonly string[] = BUILT_IN_PROVIDERS;
  const names = new Set([...BUILT_IN_PROVIDERS, ...Object.keys(providers)]);
  if (names.size > MAX_PROVIDERS) ctx.addIssue({ code: "custom", message: "too many providers" });
  for (const [name, entry] of Object.entries(providers)) {
    if (builtIns.includes(name)) {
      // A built-in entry only overrides endpoints; its type, if written, must be its own.
      if (entry.type !== undefined && entry.type !== name)
        ctx.addIssue({ code: "custom", message: "a built-in provider keeps its type" });
      if (entry.token_url !== undefined && name !== "codex")
        ctx.addIssue({ code: "custom", message: "only codex has a token URL" });
    } else if (entry.type !== "openai-compatible" || entry.base_url === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "a custom provider is openai-compatible with a base_url",
      });
    } else if (entry.token_url !== undefined) {
      ctx.addIssue({ code: "custom", message: "only codex has a token URL" });
    }
  }
  for (const id of settings.enabled_models ?? []) {
    const provider = id.slice(0, Math.max(0, id.indexOf("/")));
    if (!names.has(provider) || id.length === provider.length + 1)
      ctx.addIssue({ code: "custom", message: "an enabled model names an unknown provider" });
  }
}

/**
 * What the child runs with. Each file stands alone: an invalid one is ignored as though it were
 * absent, and the other still applies (docs/store.md, "Settings").
 */
export interface LoadedSettings {
  /** The global file's settings, or none (built-in defaults) when it is absent or invalid. */
  global: GlobalSettings;
  /** Project preferences over global ones, field by field. */
  preferred: { model: string | null; effort: string | null };
  /** Which files exist but do not parse or validate (each is ignored). */
  invalid: { global: boolean; project: boolean };
}

/** Reads both files synchronously: it runs once, at child start, before the first frame. */
export function loadSettings(home: string, cwd: string): LoadedSettings {
  const global = readSettingsFile(join(home, "config.json"), GlobalSettings);
  const project = readSettingsFile(join(cwd, ".mc", "config.json"), ProjectSettings);
  const g = global === "invalid" ? {} : (global ?? {});
  const p = project === "invalid" ? {} : (project ?? {});
  return {
    global: g,
    preferred: { model: p.model ?? g.model ?? null, effort: p.effort ?? g.effort ?? null },
    invalid: { global: global === "invalid", project: project === "invalid" },
  };
}

/** Whether any settings file is ignored as invalid (the `configuration_invalid` notice). */
export function anySettingsInvalid(settings: LoadedSettings): boolean {
  return settings.invalid.global || settings.invalid.project;
}

/**
 * The parsed file; null when it cannot exist (no such file, or a path component that is not a
 * folder, such as a plain file named `.mc`); "invalid" when it exists but is unreadable, unsafe,
 * oversized or wrong.
 */
function readSettingsFile<T>(path: string, schema: z.ZodType<T>): T | null | "invalid" {
  let read: SafeRead;
  try {
    read = readRegularFileSync(path, SETTINGS_BYTES);
  } catch (error) {
    if (error instanceof UnsafeStoreFile) return "invalid";
    throw error;
  }
  if (read.kind === "missing") return null;
  if (read.kind === "too_large") return "invalid";
  const json = parseJson(read.bytes);
  if (json === undefined) return "invalid";
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : "invalid";
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** JSON from UTF-8 bytes, or undefined for invalid UTF-8 or JSON. */
export function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(strictUtf8.decode(bytes));
  } catch {
    return undefined;
  }
}

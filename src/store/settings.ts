import { join, resolve } from "node:path";
import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";
import { HooksSettings } from "./hooks-settings.js";
import { McpServersSettings } from "./mcp-settings.js";
import { realish } from "./realish-path.js";
import { readRegularFileSync, type SafeRead, UnsafeStoreFile } from "./safe-read.js";
import type { SettingsFault } from "./settings-fault.js";
import {
  globalSettingsPath,
  projectSettingsPath,
  SETTINGS_BYTES,
  strictUtf8,
} from "./settings-file.js";

export {
  globalSettingsPath,
  parseJson,
  projectSettingsPath,
  SETTINGS_BYTES,
} from "./settings-file.js";

/**
 * Settings: `MC_HOME/config.json` (global) and `<cwd>/.mc/config.json` (project preferences).
 * Read once at child start; a changed file needs a child restart.
 */

// The protocol's safe-name patterns, restated because the store imports nothing outside itself.
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
const EFFORT = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Built-ins count towards this: `model.catalog.status` reports at most 32 providers. */
const MAX_PROVIDERS = 32;
const MAX_ENABLED_MODELS = 2048;

export const BUILT_IN_PROVIDERS = ["openai", "anthropic", "codex"] as const;
export const PROVIDER_TYPES = ["openai-compatible", "openai", "anthropic", "codex"] as const;

const Url = lazy(() => z.string().min(1).max(2048));

const ProviderSettings = lazy(() =>
  z.strictObject({
    type: z.enum(PROVIDER_TYPES).optional(),
    base_url: Url().optional(),
    api_key_env: z.string().regex(ENV_NAME).optional(),
    token_url: Url().optional(),
  }),
);

/**
 * The schemas of the two large fields, `mcp_servers` and `hooks`: about two thirds of building
 * the settings' schemas, which a child's start pays before its first session (issue 44), for
 * fields most files never write. A file without one of those keys is checked with a schema
 * that has a stand-in there (`settingsSchemaFor`): the key is absent, so its schema is never
 * asked anything, and every verdict, issue and value is the full schema's.
 */
interface LargeFields<M extends z.ZodType, H extends z.ZodType> {
  mcp: () => M;
  hooks: () => H;
}

const FULL = { mcp: McpServersSettings, hooks: HooksSettings };
/** What stands in for a large field's schema where the file has no such key. */
const absent = () => z.never();

/** The fields of MC_HOME/config.json; GlobalSettings adds the rules across them. */
const globalFields = <M extends z.ZodType, H extends z.ZodType>(large: LargeFields<M, H>) =>
  z.strictObject({
    providers: z.record(z.string().regex(PROVIDER_ID), ProviderSettings()).optional(),
    enabled_models: z.array(z.string().regex(MODEL_ID)).max(MAX_ENABLED_MODELS).optional(),
    model: z.string().regex(MODEL_ID).optional(),
    effort: z.string().regex(EFFORT).optional(),
    /** The model subagents run on (docs/turns.md, "Subagents"); absent: the parent turn's. */
    subagent_model: z.string().regex(MODEL_ID).optional(),
    models_dev_url: Url().optional(),
    /** The OS sandbox of the `sandboxed` permission level (docs/tools.md, "The sandbox"). */
    sandbox: z.strictObject({ network: z.boolean().optional() }).optional(),
    /** MCP servers the child starts (docs/mcp.md, "Configuration"). */
    mcp_servers: large.mcp().optional(),
    /** Commands run at a turn's steps, in Claude Code's format (docs/hooks.md). */
    hooks: large.hooks().optional(),
    /** Each session's spending limit in USD: past it turn.start is `budget_exceeded`. */
    budget_usd: z.number().min(0).max(1e9).finite().optional(),
  });

const GlobalFields = lazy(() => globalFields(FULL));

export const GlobalSettings = lazy(() => GlobalFields().superRefine(checkProviders));

/**
 * `<cwd>/.mc/config.json`: preferences, plus the code a project asks to run (`hooks`,
 * `mcp_servers`), which runs only in a workspace the user trusts (docs/trust.md).
 */
const projectFields = <M extends z.ZodType, H extends z.ZodType>(large: LargeFields<M, H>) =>
  z.strictObject({
    model: z.string().regex(MODEL_ID).optional(),
    effort: z.string().regex(EFFORT).optional(),
    /** As the global one; the project's wins. */
    subagent_model: z.string().regex(MODEL_ID).optional(),
    /** The project's hooks (docs/hooks.md): they run only once the workspace is trusted. */
    hooks: large.hooks().optional(),
    /** The same shape as the global `mcp_servers` (docs/mcp.md, "Configuration"). */
    mcp_servers: large.mcp().optional(),
  });

export const ProjectSettings = lazy(() => projectFields(FULL));

/**
 * The schema a parsed settings file is checked with: `full` itself for a file with both large
 * fields, else one `build` makes without the schema of each it lacks (a stand-in in its place,
 * never asked anything: the key is absent). Each is built once.
 */
function settingsSchemaFor<T>(
  full: () => z.ZodType<T>,
  build: (large: LargeFields<z.ZodType, z.ZodType>) => z.ZodType,
): (json: unknown) => z.ZodType<T> {
  const leaner = new Map<string, z.ZodType<T>>();
  return (json) => {
    const has = (key: string) =>
      typeof json === "object" && json !== null && Object.hasOwn(json, key);
    const mcp = has("mcp_servers");
    const hooks = has("hooks");
    if (mcp && hooks) return full();
    const name = `${mcp}${hooks}`;
    let schema = leaner.get(name);
    if (schema === undefined) {
      // The same fields, rules and order: only a stand-in where the file has no such key.
      schema = build({
        mcp: mcp ? FULL.mcp : absent,
        hooks: hooks ? FULL.hooks : absent,
      }) as z.ZodType<T>;
      leaner.set(name, schema);
    }
    return schema;
  };
}

const globalSchemaFor = settingsSchemaFor(GlobalSettings, (large) =>
  globalFields(large).superRefine(checkProviders),
);
const projectSchemaFor = settingsSchemaFor(ProjectSettings, projectFields);

export type GlobalSettings = Infer<typeof GlobalSettings>;
export type ProjectSettings = Infer<typeof ProjectSettings>;

/** Cross-field rules a record schema cannot say on its own. */
function checkProviders(
  settings: Pick<Infer<typeof GlobalFields>, "providers" | "enabled_models">,
  ctx: z.RefinementCtx,
): void {
  const providers = settings.providers ?? {};
  const builtIns: readonly string[] = BUILT_IN_PROVIDERS;
  const names = new Set([...BUILT_IN_PROVIDERS, ...Object.keys(providers)]);
  // Each issue names its rule (docs/extensions.md, `settings.check`) and where it is.
  const issue = (rule: string, path: (string | number)[]) =>
    ctx.addIssue({ code: "custom", message: rule, params: { rule }, path });
  if (names.size > MAX_PROVIDERS) issue("too_many_providers", ["providers"]);
  for (const [name, entry] of Object.entries(providers)) {
    if (builtIns.includes(name)) {
      // A built-in entry only overrides endpoints; its type, if written, must be its own.
      if (entry.type !== undefined && entry.type !== name)
        issue("built_in_type", ["providers", name, "type"]);
      if (entry.token_url !== undefined && name !== "codex")
        issue("token_url_not_allowed", ["providers", name, "token_url"]);
    } else if (entry.type !== "openai-compatible" || entry.base_url === undefined) {
      issue("custom_provider_shape", ["providers", name]);
    } else if (entry.token_url !== undefined) {
      issue("token_url_not_allowed", ["providers", name, "token_url"]);
    }
  }
  for (const [index, id] of (settings.enabled_models ?? []).entries()) {
    const provider = id.slice(0, Math.max(0, id.indexOf("/")));
    if (!names.has(provider) || id.length === provider.length + 1)
      issue("unknown_provider", ["enabled_models", index]);
  }
}

/**
 * What the child runs with. Each file stands alone: an invalid one is ignored as though it were
 * absent, and the other still applies (docs/store.md, "Settings").
 */
export interface LoadedSettings {
  /** The global file's settings, or none (built-in defaults) when it is absent or invalid. */
  global: GlobalSettings;
  /** The project file's settings, or none when it is absent, invalid or the global file. */
  project: ProjectSettings;
  /** Project preferences over global ones, field by field. */
  preferred: { model: string | null; effort: string | null };
  /** `subagent_model`, project over global; null: subagents run on their parent's model. */
  subagentModel: string | null;
  /** Each valid file's `hooks` (docs/hooks.md); a project's run only once trusted. */
  hooks: { global: HooksSettings | null; project: HooksSettings | null };
  /** Which files exist but do not parse or validate (each is ignored). */
  invalid: { global: boolean; project: boolean };
  /** Each file's state as read, with what is wrong with an invalid one (`settings.check`). */
  files: { global: SettingsFileState; project: SettingsFileState };
}

export type SettingsFileState =
  | { state: "absent" }
  | { state: "valid" }
  | { state: "invalid"; fault: SettingsFault };

type FileRead<T> =
  | { state: "absent" }
  | { state: "valid"; data: T }
  | { state: "invalid"; fault: SettingsFault };

/** Reads both files synchronously: it runs once, at child start, before the first frame. */
export function loadSettings(home: string, cwd: string): LoadedSettings {
  const global = readSettingsFile(globalSettingsPath(home), globalSchemaFor);
  // In the home folder with the default MC_HOME, `<cwd>/.mc` is MC_HOME: the project file is the
  // global one, read once as such (not again as a project file, which it would fail).
  const project: FileRead<ProjectSettings> = projectIsGlobal(home, cwd)
    ? { state: "absent" }
    : readSettingsFile(projectSettingsPath(cwd), projectSchemaFor);
  const g = global.state === "valid" ? global.data : {};
  const p = project.state === "valid" ? project.data : {};
  return {
    global: g,
    project: p,
    preferred: { model: p.model ?? g.model ?? null, effort: p.effort ?? g.effort ?? null },
    subagentModel: p.subagent_model ?? g.subagent_model ?? null,
    hooks: { global: g.hooks ?? null, project: p.hooks ?? null },
    invalid: { global: global.state === "invalid", project: project.state === "invalid" },
    files: { global: withoutData(global), project: withoutData(project) },
  };
}

/** Whether `<cwd>/.mc` is MC_HOME itself (compared by real path): its config.json is global. */
export function projectIsGlobal(home: string, cwd: string): boolean {
  return realish(join(resolve(cwd), ".mc")) === realish(resolve(home));
}

function withoutData<T>(read: FileRead<T>): SettingsFileState {
  return read.state === "valid" ? { state: "valid" } : read;
}

/**
 * The parsed file; absent when it cannot exist (no such file, or a path component that is not a
 * folder, such as a plain file named `.mc`); invalid when it exists but is unreadable, unsafe,
 * oversized or wrong, with the fault kept (an invalid file's text is kept only to locate it).
 * `schema` is called only for a file that parsed as JSON, with its value: a start with no
 * settings file builds no settings schema (src/protocol/lazy.ts), and a file without the large
 * fields, not theirs (`settingsSchemaFor`).
 */
export function readSettingsFile<T>(
  path: string,
  schema: (json: unknown) => z.ZodType<T>,
): FileRead<T> {
  let read: SafeRead;
  try {
    read = readRegularFileSync(path, SETTINGS_BYTES);
  } catch (error) {
    if (error instanceof UnsafeStoreFile) {
      const reason = error.why === "not_regular" ? "not_regular" : "unreadable";
      return { state: "invalid", fault: { reason, text: null, issue: null } };
    }
    throw error;
  }
  if (read.kind === "missing") return { state: "absent" };
  if (read.kind === "too_large")
    return { state: "invalid", fault: { reason: "too_large", text: null, issue: null } };
  let text: string;
  try {
    text = strictUtf8.decode(read.bytes);
  } catch {
    return { state: "invalid", fault: { reason: "encoding", text: null, issue: null } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { state: "invalid", fault: { reason: "syntax", text, issue: null } };
  }
  // Without zod's compiled fast path: a settings file is parsed once per child, and generating
  // and compiling that code cost more than it saved (2.3 vs 1.4 ms on a start's first parse).
  const parsed = schema(json).safeParse(json, { jitless: true });
  if (parsed.success) return { state: "valid", data: parsed.data };
  return { state: "invalid", fault: { reason: "schema", text, issue: firstIssue(parsed.error) } };
}

/** The first issue zod found, reduced to what locating it needs (no values, no messages). */
function firstIssue(error: z.ZodError): SettingsFault["issue"] {
  const issue = error.issues[0];
  if (!issue) return null;
  const rule =
    issue.code === "custom" && typeof issue.params?.rule === "string" ? issue.params.rule : null;
  return {
    code: issue.code,
    path: issue.path.filter((p): p is string | number => typeof p !== "symbol"),
    keys: issue.code === "unrecognized_keys" ? issue.keys : [],
    rule,
  };
}

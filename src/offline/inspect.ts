import { stat } from "node:fs/promises";
import { type Credential, discoverCredential } from "../credentials/discovery.js";
import { type Provider, resolveProviders } from "../models/providers.js";
import {
  CacheLimitExceeded,
  checkCacheFolders,
  readCacheBytes,
  validateCache,
} from "../store/catalog-cache.js";
import { credentialPaths, McAuthFile, readCredentialFile } from "../store/credentials.js";
import { resolveHome } from "../store/home.js";
import { UnsafeStoreFile } from "../store/safe-read.js";
import {
  GlobalSettings,
  globalSettingsPath,
  loadSettings,
  ProjectSettings,
  projectIsGlobal,
  projectSettingsPath,
  readSettingsFile,
} from "../store/settings.js";
import type { LocatedFault } from "../store/settings-fault.js";
import { locateFault } from "../store/settings-locate.js";

/**
 * What `mc-agent doctor` finds in MC_HOME and the workspace, read from the store directly (no
 * child runs): the same files, rules and validation the backend child uses at its start, as
 * plain data (the CLI words it), never a secret.
 */
export interface Findings {
  home: { path: string; fromEnv: boolean; kind: "folder" | "absent" | "not_a_folder" };
  files: FileFinding[];
  auth: { path: string; state: "absent" | "present" | "unsafe"; mode: number | null };
  providers: ProviderFinding[];
  enabled: string[];
  preferred: string | null;
}

interface FileFinding {
  file: "global" | "project";
  path: string;
  state: "absent" | "valid" | "invalid";
  fault: LocatedFault | null;
}

interface ProviderFinding {
  id: string;
  type: string;
  baseUrl: string;
  credential: CredentialSource;
  ready: boolean;
  cache: string;
  models: number;
  /** Enabled models of this provider its valid cache lists / lacks. */
  enabledCached: string[];
  enabledMissing: string[];
}

/**
 * Where a provider's credential comes from, by name only: the variable or the file, never its
 * value.
 */
export type CredentialSource =
  /** None found; `variable` is the provider's `api_key_env` (unset), when it names one. */
  | { from: "none"; variable: string | null }
  /** None needed: a keyless provider. */
  | { from: "keyless" }
  | { from: "variable"; variable: string }
  /** MC_HOME/auth.json: an API key, Codex's OAuth tokens, or another provider's OAuth token. */
  | { from: "mc_auth"; kind: "api_key" | "codex_tokens" | "oauth_token" }
  /** Codex's own auth.json, at `path`. */
  | { from: "codex_auth"; path: string }
  /** Claude's own credentials file, at `path`. */
  | { from: "claude_credentials"; path: string };

export async function inspect(env: NodeJS.ProcessEnv, cwd: string): Promise<Findings> {
  const home = resolveHome(env);
  const kind = await kindOf(home);
  const settings = loadSettings(home, cwd);
  const files = [
    fileFinding("global", globalSettingsPath(home), GlobalSettings),
    // In the home folder `.mc/config.json` is the global file, listed once, as such.
    projectIsGlobal(home, cwd)
      ? {
          file: "project" as const,
          path: projectSettingsPath(cwd),
          state: "absent" as const,
          fault: null,
        }
      : fileFinding("project", projectSettingsPath(cwd), ProjectSettings),
  ];
  const paths = credentialPaths(home, env);
  const enabled = settings.global.enabled_models ?? [];
  const providers: ProviderFinding[] = [];
  for (const provider of resolveProviders(settings))
    providers.push(await providerFinding(provider, { home, env, paths, enabled, kind }));
  return {
    home: { path: home, fromEnv: Boolean(env.MC_HOME), kind },
    files,
    auth: { path: paths.mcAuth, ...(await authState(paths.mcAuth)) },
    providers,
    enabled,
    preferred: settings.preferred.model,
  };
}

function fileFinding(
  file: "global" | "project",
  path: string,
  schema: typeof GlobalSettings | typeof ProjectSettings,
): FileFinding {
  const read = readSettingsFile(path, schema as never);
  if (read.state !== "invalid") return { file, path, state: read.state, fault: null };
  return { file, path, state: "invalid", fault: locateFault(read.fault) };
}

interface ProviderContext {
  home: string;
  env: NodeJS.ProcessEnv;
  paths: ReturnType<typeof credentialPaths>;
  enabled: string[];
  kind: Findings["home"]["kind"];
}

async function providerFinding(provider: Provider, ctx: ProviderContext): Promise<ProviderFinding> {
  const credential = await discoverCredential(provider, { env: ctx.env, paths: ctx.paths });
  // Without a home folder there are no caches to read (MC_HOME itself is the problem).
  const { cache, ids } =
    ctx.kind === "not_a_folder"
      ? { cache: "no_home", ids: new Set<string>() }
      : await cacheState(provider, ctx.home);
  const mine = ctx.enabled.filter((id) => id.startsWith(`${provider.id}/`));
  const local = (id: string) => id.slice(provider.id.length + 1);
  return {
    id: provider.id,
    type: provider.type,
    baseUrl: provider.base_url,
    credential: await credentialSource(provider, credential, ctx),
    ready: credential !== null,
    cache,
    models: ids.size,
    enabledCached: mine.filter((id) => ids.has(local(id))),
    enabledMissing: cache === "available" ? mine.filter((id) => !ids.has(local(id))) : [],
  };
}

async function cacheState(provider: Provider, home: string) {
  try {
    await checkCacheFolders(home);
    const verdict = validateCache(
      await readCacheBytes(home, provider.id),
      provider.id,
      provider.fingerprint,
    );
    const ids = new Set(verdict.status === "available" ? verdict.models.map((m) => m.id) : []);
    return { cache: verdict.status as string, ids };
  } catch (error) {
    if (error instanceof UnsafeStoreFile) return { cache: "unsafe", ids: new Set<string>() };
    if (error instanceof CacheLimitExceeded) return { cache: "over_limit", ids: new Set<string>() };
    return { cache: "unreadable", ids: new Set<string>() };
  }
}

async function credentialSource(
  provider: Provider,
  credential: Credential | null,
  ctx: ProviderContext,
): Promise<CredentialSource> {
  const variable = provider.api_key_env;
  if (credential === null) return { from: "none", variable: variable || null };
  if (credential.kind === "keyless") return { from: "keyless" };
  if (credential.kind === "api_key")
    return variable && ctx.env[variable]
      ? { from: "variable", variable }
      : { from: "mc_auth", kind: "api_key" };
  if (credential.kind === "codex")
    return credential.source === "mc"
      ? { from: "mc_auth", kind: "codex_tokens" }
      : { from: "codex_auth", path: ctx.paths.codexAuth };
  const file = await readCredentialFile(ctx.paths.mcAuth, McAuthFile());
  return file?.[provider.id]?.type === "oauth"
    ? { from: "mc_auth", kind: "oauth_token" }
    : { from: "claude_credentials", path: ctx.paths.claudeCredentials };
}

async function kindOf(path: string): Promise<Findings["home"]["kind"]> {
  try {
    return (await stat(path)).isDirectory() ? "folder" : "not_a_folder";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "not_a_folder";
  }
}

async function authState(path: string): Promise<Pick<Findings["auth"], "state" | "mode">> {
  try {
    const info = await stat(path);
    return info.isFile()
      ? { state: "present", mode: info.mode & 0o777 }
      : { state: "unsafe", mode: null };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR"
      ? { state: "absent", mode: null }
      : { state: "unsafe", mode: null };
  }
}

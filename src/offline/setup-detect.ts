import { PROVIDER_CREDENTIAL_VARIABLES } from "../protocol/secret-handoff.js";
import { type CredentialSource, inspect } from "./inspect.js";

/**
 * What `mc-agent setup` finds on this machine before it asks anything: each provider mc already
 * knows (the built-ins and those of MC_HOME/config.json) with where its credential would come
 * from (a key variable, Codex's or Claude's login, MC_HOME/auth.json: by name only), the other
 * standard key variables that are set, and the local model servers that answer. Plain data; the
 * CLI words it.
 */
export interface SetupFindings {
  settingsState: "absent" | "valid" | "invalid";
  providers: KnownProvider[];
  /** Standard key variables that are set but belong to no provider here (by name only). */
  otherKeys: string[];
  servers: FoundServer[];
  /** The settings' current `model` and `enabled_models`, to mark and keep them. */
  model: string | null;
  enabled: string[];
}

export interface KnownProvider {
  id: string;
  type: string;
  baseUrl: string;
  credential: CredentialSource;
  ready: boolean;
}

export interface FoundServer {
  /** The provider name it would get: the server's kind, or "local" for --server. */
  name: string;
  label: string;
  /** Its OpenAI-compatible base URL (ending in /v1). */
  baseUrl: string;
  /** How many models its /v1/models lists. */
  models: number;
}

/** The local servers' default ports (docs/cli.md, "setup"): probed on 127.0.0.1 only. */
export const DEFAULT_SERVERS = [
  { name: "ollama", label: "Ollama", port: 11434 },
  { name: "lmstudio", label: "LM Studio", port: 1234 },
  { name: "llamacpp", label: "llama.cpp", port: 8080 },
  { name: "vllm", label: "vLLM", port: 8000 },
] as const;

/** How long one probe may take: a local server answers /v1/models at once. */
export const PROBE_MS = 1500;
/** A /v1/models answer larger than this is not read (a local server lists a few models). */
const PROBE_BYTES = 4_194_304;

/**
 * `servers`: the base URLs to probe instead of the default ports (`--server`), or null for the
 * defaults. Every probe runs at once, each bounded by PROBE_MS (Ctrl-C meanwhile ends the
 * command before anything was written).
 */
export async function detectSetup(
  env: NodeJS.ProcessEnv,
  cwd: string,
  servers: string[] | null,
): Promise<SetupFindings> {
  const findings = await inspect(env, cwd);
  const global = findings.files.find((f) => f.file === "global");
  const providers = findings.providers.map((p) => ({
    id: p.id,
    type: p.type,
    baseUrl: p.baseUrl,
    credential: p.credential,
    ready: p.ready,
  }));
  const used = new Set(
    providers.flatMap((p) => (p.credential.from === "variable" ? [p.credential.variable] : [])),
  );
  const otherKeys = PROVIDER_CREDENTIAL_VARIABLES.filter((name) => env[name] && !used.has(name));
  const targets =
    servers?.map((url) => ({ name: "local", label: "server", baseUrl: normalizeBaseUrl(url) })) ??
    DEFAULT_SERVERS.map((s) => ({
      name: s.name,
      label: s.label,
      baseUrl: `http://127.0.0.1:${s.port}/v1`,
    }));
  const probed = await Promise.all(
    targets.map(async (t) => ({ ...t, models: await probeModels(t.baseUrl) })),
  );
  return {
    settingsState: global?.state ?? "absent",
    providers,
    otherKeys,
    servers: probed.filter((s): s is FoundServer => s.models !== null),
    model: findings.preferred,
    enabled: findings.enabled,
  };
}

/** `http://host:port` or `.../v1`, with or without a trailing slash: the base URL ending in /v1. */
export function normalizeBaseUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** The number of models a server's GET /v1/models lists, or null when it does not answer so. */
export async function probeModels(baseUrl: string): Promise<number | null> {
  try {
    const response = await fetch(`${baseUrl}/models`, {
      signal: AbortSignal.timeout(PROBE_MS),
      headers: { accept: "application/json" },
      redirect: "error",
    });
    const length = Number(response.headers.get("content-length") ?? "0");
    if (!response.ok || length > PROBE_BYTES) {
      await response.body?.cancel();
      return null;
    }
    const body: unknown = JSON.parse(await response.text());
    const data = (body as { data?: unknown } | null)?.data;
    return Array.isArray(data) ? data.length : null;
  } catch {
    return null;
  }
}

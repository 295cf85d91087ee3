import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./harness.js";

/**
 * An MC_HOME wired to loopback providers, as `docs/store.md` describes it: a custom
 * `openai-compatible` provider `demo` (key from DEMO_KEY) with `demo/demo-1` enabled, and every
 * built-in provider and models.dev pointed at the same loopback origin, so nothing ever leaves
 * the machine.
 */
export const DEMO_KEY = "sk-conformance-demo-key-5b1e";
export const REFRESH_CAPABILITIES = [
  "model.catalog",
  "model.catalog.status",
  "model.refresh",
  "model.select",
  "operation.cancel",
];

export function writeProviderHome(box: Sandbox, origin: string): void {
  const config = {
    providers: {
      demo: { type: "openai-compatible", base_url: `${origin}/v1`, api_key_env: "DEMO_KEY" },
      openai: { base_url: `${origin}/openai/v1` },
      anthropic: { base_url: `${origin}/anthropic` },
      codex: { base_url: `${origin}/codex`, token_url: `${origin}/oauth/token` },
    },
    enabled_models: ["demo/demo-1", "codex/gpt-x"],
    models_dev_url: `${origin}/api.json`,
  };
  writeFileSync(join(box.home, "config.json"), JSON.stringify(config, null, 2));
}

/** The child's environment for a provider home. */
export const PROVIDER_ENV = { DEMO_KEY };

/** An OpenAI-style model list (`GET /v1/models`). */
export function openAiModels(ids: string[]): unknown {
  return {
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "conformance" })),
  };
}

/** `count` model IDs, padded so that the cache is big enough to take a while to write. */
export function manyModelIds(count: number, tag: string): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${tag}-${String(i).padStart(5, "0")}-${"m".repeat(40)}`,
  );
}

export function cachePath(box: Sandbox, provider: string): string {
  return join(box.home, "cache", "models", `${provider}.json`);
}

/** The cache's bytes, or null when there is none. */
export function readCache(box: Sandbox, provider: string): Buffer | null {
  try {
    return readFileSync(cachePath(box, provider));
  } catch {
    return null;
  }
}

/** An unsigned JWT whose `exp` is `expSeconds` (enough for expiry checks, as Codex's are read). */
export function jwt(expSeconds: number, tag: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part({ exp: expSeconds, tag })}.sig`;
}

/** Codex's own `auth.json` under CODEX_HOME (the harness puts CODEX_HOME in the sandbox). */
export function codexAuthPath(box: Sandbox): string {
  return join(box.home, "no-codex", "auth.json");
}

export function writeExpiredCodexAuth(box: Sandbox): string {
  const path = codexAuthPath(box);
  mkdirSync(join(box.home, "no-codex"), { recursive: true, mode: 0o700 });
  const file = {
    tokens: {
      access_token: jwt(1_000_000_000, "old"),
      refresh_token: "rt-old",
      account_id: "acct-1",
    },
    last_refresh: "2020-01-01T00:00:00.000Z",
  };
  writeFileSync(path, JSON.stringify(file, null, 2), { mode: 0o600 });
  return path;
}

export function fileMode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The renewed tokens a Codex token endpoint answers with. */
export function renewedTokens(): unknown {
  return {
    access_token: jwt(Math.floor(Date.now() / 1000) + 3600, "new"),
    refresh_token: "rt-new",
    id_token: jwt(Math.floor(Date.now() / 1000) + 3600, "id"),
  };
}

/** Codex's models endpoint answer. */
export function codexModels(slugs: string[]): unknown {
  return { models: slugs.map((slug) => ({ slug, display_name: slug })) };
}

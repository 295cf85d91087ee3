import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../helpers/child.js";

/** Built-in endpoints, as docs/store.md documents them (used to fingerprint their caches). */
export const BUILT_IN_URLS = {
  openai: { type: "openai", base_url: "https://api.openai.com/v1" },
  anthropic: { type: "anthropic", base_url: "https://api.anthropic.com" },
  codex: { type: "codex", base_url: "https://chatgpt.com/backend-api/codex" },
} as const;

export const MODEL_CAPS = [
  "model.catalog",
  "model.catalog.status",
  "model.select",
  "model.refresh",
  "operation.cancel",
];

/** The documented fingerprint recipe, restated independently of the source. */
export function fingerprint(type: string, baseUrl: string): string {
  return createHash("sha256")
    .update(JSON.stringify({ type, base_url: baseUrl }))
    .digest("hex");
}

export function writeJson(path: string, value: unknown, mode = 0o600): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value), { mode });
}

export function writeConfig(box: Sandbox, config: unknown): void {
  writeJson(join(box.home, "config.json"), config);
}

export function cacheFile(box: Sandbox, provider: string): string {
  return join(box.home, "cache", "models", `${provider}.json`);
}

export interface CacheModelFixture {
  id: string;
  name?: string | null;
  efforts?: string[];
  default_effort?: string | null;
  context_window?: number;
  modalities?: { input: string[] };
}

/** A valid cache document for a provider with the given identity. */
export function cacheDoc(
  provider: string,
  identity: { type: string; base_url: string },
  models: CacheModelFixture[],
): Record<string, unknown> {
  return {
    format: "mc-model-cache",
    version: 1,
    provider,
    fingerprint: fingerprint(identity.type, identity.base_url),
    fetched_at: "2026-11-01T00:00:00.000Z",
    models,
  };
}

export function writeCache(box: Sandbox, provider: string, doc: unknown): void {
  writeJson(cacheFile(box, provider), doc);
}

/** A demo provider on a loopback URL, with one enabled model. */
export function demoConfig(baseUrl = "http://127.0.0.1:9/v1", extra: Record<string, unknown> = {}) {
  return {
    providers: { demo: { type: "openai-compatible", base_url: baseUrl, api_key_env: "DEMO_KEY" } },
    enabled_models: ["demo/demo-1"],
    ...extra,
  };
}

export const DEMO_MODELS: CacheModelFixture[] = [
  { id: "demo-1", name: "Demo 1", efforts: ["low", "medium", "high"], default_effort: "medium" },
  { id: "demo-2", name: "Demo 2" },
];

/**
 * Path -> content hash of every file under a folder, to prove nothing changed. `skip` names
 * paths (files or folders) never entered: ones another process may be writing meanwhile.
 */
export function treeDigest(
  root: string,
  skip: (path: string) => boolean = () => false,
): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (skip(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const stat = statSync(path);
        out.set(
          path,
          `${stat.mtimeMs}:${createHash("sha256").update(readFileSync(path)).digest("hex")}`,
        );
      } else out.set(path, "special");
    }
  };
  walk(root);
  return out;
}

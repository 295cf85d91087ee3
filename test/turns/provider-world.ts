import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChatServer, startChatServer } from "../fixtures/chat-completions-server.js";
import { type ScriptedServer, startScriptedServer } from "../fixtures/scripted-sse.js";
import type { ChildOptions, Sandbox, TestChild } from "../helpers/child.js";
import { sandbox, startReady } from "../helpers/child.js";
import { type FakeServer, json, startServer } from "../models/fake-server.js";
import { type CacheModelFixture, cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";
import { TURN_CAPS } from "./turn-harness.js";

/**
 * Worlds for the built-in providers: each built-in is configured at a loopback server in its own
 * wire format (a config entry of the built-in's name overrides `base_url`, and for codex
 * `token_url`), with a valid cache fingerprinted for the overridden endpoint (docs/store.md), and
 * a child negotiated for turns. Credentials come from `env` or from files `setup` writes (the
 * harness points CODEX_HOME and CLAUDE_CONFIG_DIR into the home).
 */

export type BuiltIn = "openai" | "codex" | "anthropic";
export type WorldProvider = BuiltIn | "demo";

export const DEFAULT_PROVIDER_MODELS: Record<WorldProvider, CacheModelFixture[]> = {
  openai: [
    {
      id: "gpt-5",
      name: "GPT-5",
      efforts: ["minimal", "low", "medium", "high"],
      default_effort: "medium",
    },
    { id: "gpt-4.1", name: "GPT-4.1" },
  ],
  codex: [
    {
      id: "gpt-5-codex",
      name: "GPT-5 Codex",
      efforts: ["low", "medium", "high"],
      default_effort: "medium",
    },
  ],
  anthropic: [
    {
      id: "claude-sonnet-4-test",
      name: "Claude Sonnet 4 (test)",
      efforts: ["low", "medium", "high"],
      default_effort: "medium",
    },
    { id: "claude-3-5-haiku-latest", name: "Claude Haiku 3.5" },
  ],
  demo: [
    { id: "demo-1", name: "Demo 1", efforts: ["low", "medium", "high"], default_effort: "medium" },
    { id: "demo-2", name: "Demo 2" },
  ],
};

export interface ProviderWorldOptions {
  /** The providers configured at loopback servers; the first one's first model is selected. */
  providers: WorldProvider[];
  models?: Partial<Record<WorldProvider, CacheModelFixture[]>>;
  /** The selected model's full ID (default: the first provider's first model). */
  model?: string;
  effort?: string;
  /** Credentials and switches for the child (DEMO_KEY is set when `demo` is configured). */
  env?: Record<string, string>;
  /** Runs before the child starts: credential files, AGENTS.md, workspace files. */
  setup?: (box: Sandbox) => void;
  /** After `setup`: more options for the child (e.g. `unprivilegedChild`'s command). */
  childOptions?: (box: Sandbox) => Partial<ChildOptions>;
  /** What the child negotiates (default TURN_CAPS). */
  capabilities?: string[];
}

export interface ProviderWorld {
  box: Sandbox;
  child: TestChild;
  /** The loopback server of a built-in (Responses or Messages event streams). */
  sse(provider: BuiltIn): ScriptedServer;
  /** The `demo` provider's Chat Completions server. */
  chat(): ChatServer;
  /** Codex's token endpoint; set `route` to answer renewals (unset, it answers 500). */
  tokens(): FakeServer;
  /** Every base URL configured, for leak checks. */
  urls: string[];
  close(): Promise<void>;
}

export const DEMO_KEY = "sk-demo-secret-key";

export async function providerWorld(options: ProviderWorldOptions): Promise<ProviderWorld> {
  const box = sandbox("mc-prov-");
  const servers = new Map<BuiltIn, ScriptedServer>();
  const side: { chat: ChatServer | null; tokens: FakeServer | null } = { chat: null, tokens: null };
  const providers: Record<string, Record<string, string>> = {};
  const enabled: string[] = [];
  const urls: string[] = [];
  for (const id of options.providers) {
    const models = options.models?.[id] ?? DEFAULT_PROVIDER_MODELS[id];
    const entry = await endpointOf(id);
    providers[id] = entry.config;
    urls.push(entry.config.base_url, ...(entry.config.token_url ? [entry.config.token_url] : []));
    writeCache(
      box,
      id,
      cacheDoc(id, { type: entry.type, base_url: entry.config.base_url }, models),
    );
    enabled.push(...models.map((m) => `${id}/${m.id}`));
  }
  const first = options.providers[0] as WorldProvider;
  const firstModel = (options.models?.[first] ?? DEFAULT_PROVIDER_MODELS[first])[0]?.id;
  writeConfig(box, {
    providers,
    enabled_models: enabled,
    model: options.model ?? `${first}/${firstModel}`,
    ...(options.effort ? { effort: options.effort } : {}),
  });
  options.setup?.(box);
  const extra = options.childOptions?.(box);
  const child = await startReady(box, options.capabilities ?? TURN_CAPS, {
    testMethods: true,
    ...extra,
    env: {
      ...(side.chat ? { DEMO_KEY } : {}),
      MC_AGENT_TEST_BACKOFF_PERCENT: "1",
      ...options.env,
    },
  });
  const world: ProviderWorld = {
    box,
    child,
    urls,
    sse: (provider) => {
      const server = servers.get(provider);
      assert.ok(server, `${provider} is not configured in this world`);
      return server;
    },
    chat: () => {
      assert.ok(side.chat, "demo is not configured in this world");
      return side.chat;
    },
    tokens: () => {
      assert.ok(side.tokens, "codex is not configured in this world");
      return side.tokens;
    },
    close: async () => {
      await world.child.close();
      for (const server of servers.values()) await server.close();
      await side.chat?.close();
      await side.tokens?.close();
      box.cleanup();
    },
  };
  return world;

  async function endpointOf(
    id: WorldProvider,
  ): Promise<{ type: string; config: { base_url: string } & Record<string, string> }> {
    if (id === "demo") {
      side.chat = await startChatServer();
      const base_url = side.chat.baseUrl;
      const config = { type: "openai-compatible", base_url, api_key_env: "DEMO_KEY" };
      return { type: "openai-compatible", config };
    }
    const server = await startScriptedServer();
    servers.set(id, server);
    if (id === "openai") return { type: id, config: { base_url: `${server.url}/v1` } };
    if (id === "anthropic") return { type: id, config: { base_url: server.url } };
    side.tokens = await startServer((_req, res) => json(res, 500, { error: "unscripted" }));
    const config = {
      base_url: `${server.url}/backend-api/codex`,
      token_url: `${side.tokens.url}/oauth/token`,
    };
    return { type: id, config };
  }
}

/** Selects another model between turns, as a frontend does (with a fresh catalog revision). */
export async function selectModel(
  child: TestChild,
  model: string,
  effort: string | null = null,
): Promise<void> {
  const catalog = await child.call("model.catalog", {});
  await child.call("model.select", { model, effort, catalog_revision: catalog.revision });
}

/** An unsigned JWT with these claims (the child only reads `exp` and the account claim). */
export function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.sig`;
}

/** Codex's auth file, where the harness points CODEX_HOME. */
export function codexAuthPath(box: Sandbox): string {
  return join(box.home, "no-codex", "auth.json");
}

/** Claude's credentials file, where the harness points CLAUDE_CONFIG_DIR. */
export function claudeCredentialsPath(box: Sandbox): string {
  return join(box.home, "no-claude", ".credentials.json");
}

/** Every header of every request a server saw, except `allowed`, is free of the secret. */
export function assertSecretOnlyIn(
  seen: { url: string; headers: Record<string, unknown>; body: string }[],
  secret: string,
  allowed: string,
  expected: string,
): void {
  assert.ok(seen.length > 0, "the server saw a request");
  for (const request of seen) {
    assert.equal(request.headers[allowed], expected, `the credential goes in ${allowed}`);
    for (const [name, value] of Object.entries(request.headers)) {
      if (name !== allowed)
        assert.ok(!String(value).includes(secret), `the credential is also in header ${name}`);
    }
    assert.ok(!request.url.includes(secret), "the credential is in the URL");
    assert.ok(!request.body.includes(secret), "the credential is in the body");
  }
}

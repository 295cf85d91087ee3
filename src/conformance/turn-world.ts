import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TURN_FRONTEND_CAPABILITIES } from "../protocol/capabilities.js";
import type { CaseContext } from "./case.js";
import { type ChatServer, startChatServer } from "./chat-server.js";
import type { ChildOptions, Sandbox, TestChild } from "./harness.js";
import { readyOrSkip } from "./skip.js";

/**
 * A turn case's world, set up only through what `docs/store.md` documents, so that another
 * implementation following the docs can pass: `MC_HOME/config.json` with a custom
 * `openai-compatible` provider `kit` at the kit's loopback Chat Completions server (its key in
 * `MC_KIT_KEY`), the model `kit/kit-1` enabled and preferred (the initial selection), and a
 * valid catalog cache for it (`cache/models/kit.json`, fingerprint by the documented recipe).
 */
export const KIT_KEY = "sk-conformance-turn-key-9c4d27";
export const KIT_MODEL = "kit/kit-1";

/** What a turn-driving frontend negotiates (and what these cases need). */
export const TURN_CAPABILITIES: string[] = [...TURN_FRONTEND_CAPABILITIES];

interface TurnHomeOptions {
  /** The catalog's `context_window` for the model (default none). */
  contextWindow?: number;
  /** The preferred model in config.json; null writes none (no selection). */
  model?: string | null;
  /** More catalog entries of the provider `kit`, each enabled too (default none). */
  moreModels?: ({ id: string } & Record<string, unknown>)[];
}

export function writeTurnHome(box: Sandbox, baseUrl: string, options: TurnHomeOptions = {}): void {
  const provider = { type: "openai-compatible", base_url: baseUrl };
  const model = options.model === undefined ? KIT_MODEL : options.model;
  const moreModels = options.moreModels ?? [];
  const config = {
    providers: { kit: { ...provider, api_key_env: "MC_KIT_KEY" } },
    enabled_models: [KIT_MODEL, ...moreModels.map((entry) => `kit/${entry.id}`)],
    ...(model === null ? {} : { model }),
  };
  writeFileSync(join(box.home, "config.json"), JSON.stringify(config, null, 2));
  const entry = {
    id: "kit-1",
    name: "Kit 1",
    ...(options.contextWindow ? { context_window: options.contextWindow } : {}),
  };
  const cache = {
    format: "mc-model-cache",
    version: 1,
    provider: "kit",
    // docs/store.md's recipe: SHA-256 of the compact {"type","base_url"} JSON, in that order.
    fingerprint: createHash("sha256").update(JSON.stringify(provider)).digest("hex"),
    fetched_at: "2026-11-29T10:00:00.000Z",
    models: [entry, ...moreModels],
  };
  const folder = join(box.home, "cache", "models");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(join(folder, "kit.json"), JSON.stringify(cache), { mode: 0o600 });
}

export interface TurnWorld {
  ctx: CaseContext;
  server: ChatServer;
  child: TestChild;
  /** A fresh child on the same store, negotiated for turns (after a kill, say). */
  respawn(capabilities?: string[]): Promise<TestChild>;
}

/** The world for one case; its server is closed when the body ends, whatever happened. */
export async function withTurnWorld(
  ctx: CaseContext,
  body: (world: TurnWorld) => Promise<void>,
  options: TurnHomeOptions & { capabilities?: string[] } = {},
): Promise<void> {
  const server = await startChatServer();
  try {
    writeTurnHome(ctx.box, server.baseUrl, options);
    const respawn = (capabilities = options.capabilities ?? TURN_CAPABILITIES) =>
      readyOrSkip(ctx, capabilities, turnChildOptions());
    const child = await respawn();
    await body({ ctx, server, child, respawn });
  } finally {
    await server.close();
  }
}

export function turnChildOptions(): Partial<ChildOptions> {
  return { env: { MC_KIT_KEY: KIT_KEY } };
}

/** The history files under MC_HOME/sessions (none when the folder is missing). */
export function historyFiles(box: Sandbox): string[] {
  const folder = join(box.home, "sessions");
  if (!existsSync(folder)) return [];
  return readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
}

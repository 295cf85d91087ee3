import { cacheDoc, writeCache, writeConfig } from "../models/fixtures.js";
import type { Sandbox } from "./child.js";

export const TURN_KEY = "sk-cli-test-key";

/**
 * A store whose `demo` provider is a loopback Chat Completions server at `baseUrl`, with a valid
 * cached catalog (demo-1 with efforts and a 128k context window, demo-2 without either) and, unless `model` is null, demo/demo-1
 * preselected in settings; the environment the CLI runs with (the key in DEMO_KEY).
 */
export function writeTurnHome(
  box: Sandbox,
  baseUrl: string,
  options: { model?: string | null } = {},
): Record<string, string | undefined> {
  const identity = { type: "openai-compatible", base_url: baseUrl };
  writeConfig(box, {
    providers: { demo: { ...identity, api_key_env: "DEMO_KEY" } },
    enabled_models: ["demo/demo-1", "demo/demo-2"],
    ...(options.model === null ? {} : { model: options.model ?? "demo/demo-1" }),
  });
  writeCache(
    box,
    "demo",
    cacheDoc("demo", identity, [
      {
        id: "demo-1",
        name: "Demo 1",
        efforts: ["low", "high"],
        default_effort: "low",
        context_window: 128_000,
      },
      { id: "demo-2", name: "Demo 2" },
    ]),
  );
  return { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, DEMO_KEY: TURN_KEY };
}

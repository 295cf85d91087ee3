import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startChatServer } from "../../src/conformance/chat-server.js";
import { writeTurnHome } from "../../src/conformance/turn-world.js";
import { sandbox } from "../helpers/child.js";
import { AcpWorld } from "./acp-world.js";

/** The turn world with a second model, `kit/kit-2`, that has efforts. */
export async function twoModelWorld(): Promise<AcpWorld> {
  const box = sandbox("mc-acp-");
  const server = await startChatServer();
  writeTurnHome(box, server.baseUrl);
  const provider = { type: "openai-compatible", base_url: server.baseUrl };
  const config = {
    providers: { kit: { ...provider, api_key_env: "MC_KIT_KEY" } },
    enabled_models: ["kit/kit-1", "kit/kit-2"],
    model: "kit/kit-1",
  };
  writeFileSync(join(box.home, "config.json"), JSON.stringify(config));
  const cache = {
    format: "mc-model-cache",
    version: 1,
    provider: "kit",
    fingerprint: createHash("sha256").update(JSON.stringify(provider)).digest("hex"),
    fetched_at: "2026-11-29T10:00:00.000Z",
    models: [
      { id: "kit-1", name: "Kit 1" },
      { id: "kit-2", name: "Kit 2", efforts: ["low", "medium", "high"], default_effort: "medium" },
    ],
  };
  writeFileSync(join(box.home, "cache", "models", "kit.json"), JSON.stringify(cache));
  return AcpWorld.start({ box, server });
}

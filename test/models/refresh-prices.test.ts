import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { type FakeServer, json, openAiList, startServer } from "./fake-server.js";
import { cacheFile, MODEL_CAPS, writeConfig } from "./fixtures.js";

/**
 * model.refresh keeps models.dev's prices and input modalities in the catalog cache (issue 42):
 * `cost {input, output, cache_read}` in USD per million tokens and `modalities {input}`; a model
 * models.dev does not price gets neither, and a price that is not a plain number is dropped.
 */
let box: Sandbox | undefined;
let child: TestChild | undefined;
const servers: FakeServer[] = [];
afterEach(async () => {
  await child?.close();
  child = undefined;
  for (const server of servers.splice(0)) await server.close();
  box?.cleanup();
  box = undefined;
});

test("refresh keeps models.dev's cost and modalities; unpriced or malformed prices stay absent", async () => {
  const provider = await startServer((_req, res) =>
    json(res, 200, openAiList(["demo-1", "demo-2", "demo-3"])),
  );
  const modelsDev = await startServer((_req, res) =>
    json(res, 200, {
      demo: {
        models: {
          "demo-1": {
            cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
            modalities: { input: ["text", "image", "pdf"], output: ["text"] },
          },
          "demo-2": {
            cost: { input: 0.5, output: 1.5 },
            modalities: { input: ["text", "BAD NAME"] },
          },
          "demo-3": { cost: { input: "free", output: 1 } },
        },
      },
    }),
  );
  servers.push(provider, modelsDev);
  box = sandbox();
  writeConfig(box, {
    providers: {
      demo: { type: "openai-compatible", base_url: `${provider.url}/v1`, api_key_env: "DEMO_KEY" },
    },
    enabled_models: ["demo/demo-1"],
    models_dev_url: `${modelsDev.url}/api.json`,
  });
  child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "sk-test" } });
  const result = await child.call("model.refresh", { provider: "demo" });
  assert.equal(result.outcome, "refreshed");
  const cache = JSON.parse(readFileSync(cacheFile(box, "demo"), "utf8"));
  const byId = new Map(cache.models.map((m: { id: string }) => [m.id, m]));
  assert.deepEqual(byId.get("demo-1"), {
    id: "demo-1",
    cost: { input: 3, output: 15, cache_read: 0.3 },
    modalities: { input: ["text", "image", "pdf"] },
  });
  assert.deepEqual(byId.get("demo-2"), {
    id: "demo-2",
    cost: { input: 0.5, output: 1.5, cache_read: null },
    modalities: { input: ["text"] },
  });
  assert.deepEqual(byId.get("demo-3"), { id: "demo-3" });
  // The cache with the new fields reads back as a valid catalog.
  const catalog = await child.call("model.catalog", {});
  assert.deepEqual(
    catalog.choices.map((c) => c.id),
    ["demo/demo-1"],
  );
});

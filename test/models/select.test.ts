import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import {
  cacheDoc,
  DEMO_MODELS,
  demoConfig,
  MODEL_CAPS,
  treeDigest,
  writeCache,
  writeConfig,
  writeJson,
} from "./fixtures.js";

const DEMO_URL = "http://127.0.0.1:9/v1";
const identity = { type: "openai-compatible", base_url: DEMO_URL };

let box: Sandbox;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  box.cleanup();
});

async function setup(): Promise<TestChild> {
  box = sandbox();
  writeConfig(box, { ...demoConfig(DEMO_URL), model: "demo/demo-1", effort: "medium" });
  writeJson(join(box.workspace, ".mc", "config.json"), { effort: "low" });
  writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
  child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
  return child;
}

describe("model.select", () => {
  test("selects with the current revision, changes no file, and status shows it", async () => {
    const c = await setup();
    const before = [treeDigest(box.home), treeDigest(box.workspace)];
    const catalog = await c.call("model.catalog", {});
    assert.deepEqual(catalog.selection, { model: "demo/demo-1", effort: "low" });
    const selected = await c.call("model.select", {
      model: "demo/demo-1",
      effort: "high",
      catalog_revision: catalog.revision,
    });
    assert.deepEqual(selected.selection, { model: "demo/demo-1", effort: "high" });
    const status = await c.request("status", {});
    assert.deepEqual((status.result as { selection: unknown }).selection, selected.selection);
    // Rereading an unchanged catalog keeps the same revision, so its guard stays valid.
    const again = await c.call("model.catalog.status", {});
    assert.equal(again.revision, catalog.revision);
    assert.deepEqual(again.selection, selected.selection);
    const nullEffort = await c.call("model.select", {
      model: "demo/demo-1",
      effort: null,
      catalog_revision: catalog.revision,
    });
    assert.deepEqual(nullEffort.selection, { model: "demo/demo-1", effort: null });
    assert.deepEqual([treeDigest(box.home), treeDigest(box.workspace)], before);
  });

  test("an old revision is stale_revision; unselectable models and efforts are refused", async () => {
    const c = await setup();
    const before = [treeDigest(box.home), treeDigest(box.workspace)];
    const catalog = await c.call("model.catalog", {});
    const guard = catalog.revision;
    const select = (model: string, effort: string | null, revision = guard) =>
      c.errorCode("model.select", { model, effort, catalog_revision: revision });
    assert.equal(await select("demo/demo-2", null), "model_unavailable", "cached but disabled");
    assert.equal(await select("demo/nope", null), "model_unavailable", "enabled nowhere, uncached");
    assert.equal(await select("openai/gpt-5", null), "model_unavailable", "other provider");
    assert.equal(await select("demo/demo-1", "extreme"), "invalid_params", "effort not offered");
    assert.equal(await select("demo/demo-1", "low", "0".repeat(32)), "stale_revision");
    // A changed cache makes a new revision: the old guard is stale.
    writeCache(box, "demo", cacheDoc("demo", identity, [...DEMO_MODELS, { id: "demo-3" }]));
    assert.equal(await select("demo/demo-1", "low"), "stale_revision");
    const fresh = await c.call("model.catalog", {});
    assert.notEqual(fresh.revision, guard);
    const status = await c.request("status", {});
    assert.deepEqual((status.result as { selection: unknown }).selection, {
      model: "demo/demo-1",
      effort: "low",
    });
    writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
    assert.deepEqual(
      [treeDigest(box.home), treeDigest(box.workspace)].map((m) => [...m.keys()]),
      before.map((m) => [...m.keys()]),
    );
  });

  test("a guard from another child is stale", async () => {
    const c = await setup();
    const revision = (await c.call("model.catalog", {})).revision;
    const other = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    try {
      assert.equal(
        await other.errorCode("model.select", {
          model: "demo/demo-1",
          effort: null,
          catalog_revision: revision,
        }),
        "stale_revision",
      );
    } finally {
      await other.close();
    }
  });
});

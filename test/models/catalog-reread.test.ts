import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { cacheDoc, cacheFile, DEMO_MODELS, writeCache, writeConfig } from "./fixtures.js";

let box: Sandbox;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  box.cleanup();
});

const identity = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };

/**
 * A fresh read takes over what it checked before only for the very same bytes (the catalog keeps
 * its last verdict and choices by the caches' digests): a cache changed on disk between two
 * fresh reads, without a refresh, is read as it now is, and the old bytes back read as before.
 */
describe("fresh catalog reads after a cache changed on disk", () => {
  test("changed, broken and restored caches each read as they are", async () => {
    box = sandbox();
    writeConfig(box, {
      providers: { demo: { ...identity, api_key_env: "DEMO_KEY" } },
      enabled_models: ["demo/demo-1", "demo/demo-2"],
    });
    writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
    child = await startReady(box, ["model.catalog.status", "model.cached"], {
      env: { DEMO_KEY: "k" },
    });
    const read = () => (child as TestChild).call("model.catalog.status", {});
    const first = await read();
    const again = await read();
    assert.equal(again.revision, first.revision);
    assert.deepEqual(again.choices, first.choices);
    assert.deepEqual(
      first.choices.map((c) => [c.id, c.name]),
      [
        ["demo/demo-1", "Demo 1"],
        ["demo/demo-2", "Demo 2"],
      ],
    );

    // Renamed, and demo-2 gone: the same size class of file, other bytes.
    writeCache(box, "demo", cacheDoc("demo", identity, [{ id: "demo-1", name: "Demo One" }]));
    const changed = await read();
    assert.notEqual(changed.revision, first.revision);
    assert.deepEqual(
      changed.choices.map((c) => [c.id, c.name, c.efforts]),
      [["demo/demo-1", "Demo One", []]],
    );
    const cached = await (child as TestChild).call("model.cached", {});
    assert.deepEqual(
      cached.models.map((m) => [m.id, m.state]),
      [
        ["demo/demo-1", "enabled"],
        ["demo/demo-2", "enabled_missing"],
      ],
      "model.cached follows the changed cache too (demo-2 enabled, no longer in it)",
    );
    assert.equal(cached.models[1]?.name, null);

    writeFileSync(cacheFile(box, "demo"), '{"format":"mc-model-cache","version":1}\n');
    const broken = await read();
    assert.deepEqual(broken.choices, []);
    assert.equal(
      broken.providers.find((p) => p.provider === "demo")?.catalog_status,
      "invalid_schema",
    );

    writeCache(box, "demo", cacheDoc("demo", identity, DEMO_MODELS));
    const restored = await read();
    assert.equal(restored.revision, first.revision, "the same bytes: the same revision");
    assert.deepEqual(restored.choices, first.choices);
    assert.equal(
      restored.providers.find((p) => p.provider === "demo")?.catalog_status,
      "available",
    );
  });
});

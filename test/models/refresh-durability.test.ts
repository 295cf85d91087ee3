import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { nextId, type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { until } from "../helpers/fakes.js";
import { unprivilegedChild } from "../helpers/unprivileged.js";
import { closedPort, type FakeServer, json, openAiList, startServer } from "./fake-server.js";
import {
  cacheDoc,
  cacheFile,
  DEMO_MODELS,
  MODEL_CAPS,
  treeDigest,
  writeCache,
  writeConfig,
} from "./fixtures.js";

let box: Sandbox;
let server: FakeServer | undefined;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  await server?.close();
  server = undefined;
  box.cleanup();
});

async function setup(route: Parameters<typeof startServer>[0]): Promise<string> {
  box = sandbox();
  server = await startServer(route);
  const baseUrl = `${server.url}/v1`;
  writeConfig(box, {
    providers: { demo: { type: "openai-compatible", base_url: baseUrl, api_key_env: "DEMO_KEY" } },
    enabled_models: ["demo/demo-1"],
    models_dev_url: `${await closedPort()}/api.json`,
  });
  writeCache(
    box,
    "demo",
    cacheDoc("demo", { type: "openai-compatible", base_url: baseUrl }, DEMO_MODELS),
  );
  return baseUrl;
}

describe("refresh persistence", () => {
  test("a read-only cache folder is cache_write_failed with the previous bytes intact", async (t) => {
    await setup((_req, res) => json(res, 200, openAiList(["demo-1", "demo-9"])));
    const folder = join(box.home, "cache", "models");
    const before = readFileSync(cacheFile(box, "demo"));
    const run = unprivilegedChild(box);
    if ("skip" in run) return t.skip(run.skip);
    chmodSync(folder, 0o500);
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" }, ...run.options });
    const result = await child.call("model.refresh", { provider: "demo" });
    chmodSync(folder, 0o700);
    assert.equal(result.outcome, "failed");
    assert.equal(result.reason, "cache_write_failed");
    assert.ok(result.catalog_revision, "the cache was rescanned");
    assert.deepEqual(readFileSync(cacheFile(box, "demo")), before);
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(
      catalog.choices.map((c) => c.id),
      ["demo-1"].map((m) => `demo/${m}`),
    );
  });

  test("kill -9 at random moments during 50 refreshes never leaves a torn cache", async () => {
    // Two catalogs of very different sizes, alternated, so a torn write would show.
    const small = openAiList(["demo-1", "demo-2"]);
    const large = openAiList(Array.from({ length: 2000 }, (_, i) => `demo-${i + 1}`));
    let served = 0;
    await setup((_req, res) => {
      served += 1;
      json(res, 200, served % 2 === 0 ? small : large);
    });
    const valid = new Set([
      JSON.stringify(DEMO_MODELS.map((m) => m.id)),
      JSON.stringify(small.data.map((m) => m.id)),
      JSON.stringify(large.data.map((m) => m.id)),
    ]);
    let sent = 0;
    while (sent < 50) {
      const c = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
      let alive = true;
      void (async () => {
        while (alive && sent < 50) {
          sent += 1;
          // A request in flight at the kill fails as the child exits. No short bound: on a busy
          // machine a refresh can take longer than any, and one given up on early counted as
          // sent without reaching the server (8 of 50 did under two hogs and two builds).
          await c
            .request("model.refresh", { provider: "demo" }, nextId("k"), 60_000)
            .catch(() => {});
        }
      })();
      // The kill lands after this child's first refresh reached the server (on a busy machine a
      // child can need longer than any fixed delay to get there), then at a random moment of the
      // refreshes that follow: each kill hits real writes, and enough of them reach the server.
      const reached = served;
      await until(() => served > reached, "a refresh reaching the server");
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 700)));
      alive = false;
      c.kill("SIGKILL");
      await c.exited;
      const text = readFileSync(cacheFile(box, "demo"), "utf8");
      const doc = JSON.parse(text) as { models: { id: string }[] };
      assert.ok(
        valid.has(JSON.stringify(doc.models.map((m) => m.id))),
        "cache is one whole catalog",
      );
    }
    assert.ok(served >= 10, `refreshes reached the server (${served})`);
    // Whatever temp files the kills orphaned belong to dead children: the next successful
    // write of the cache removes them.
    const last = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    try {
      const result = await last.call("model.refresh", { provider: "demo" });
      assert.equal(result.outcome, "refreshed");
      assert.deepEqual(readdirSync(join(box.home, "cache", "models")), ["demo.json"]);
    } finally {
      await last.close();
    }
  });

  /** demo lists demo-1 and demo-9 (both enabled); the previous cache holds demo-1 and demo-2. */
  async function uncertainSetup(env: Record<string, string>, testMethods: boolean) {
    const baseUrl = await setup((_req, res) => json(res, 200, openAiList(["demo-1", "demo-9"])));
    writeConfig(box, {
      providers: {
        demo: { type: "openai-compatible", base_url: baseUrl, api_key_env: "DEMO_KEY" },
      },
      enabled_models: ["demo/demo-1", "demo/demo-9"],
      models_dev_url: `${await closedPort()}/api.json`,
    });
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k", ...env }, testMethods });
    return child;
  }

  const cachedIds = () =>
    (
      JSON.parse(readFileSync(cacheFile(box, "demo"), "utf8")) as { models: { id: string }[] }
    ).models.map((m) => m.id);
  const folderNames = () => readdirSync(join(box.home, "cache", "models")).sort();

  test("uncertain commit, rename done but folder fsync failed: reread finds the new cache, refreshed", async () => {
    const c = await uncertainSetup({ MC_AGENT_TEST_COMMIT_FAULT: "folder_sync_fails" }, true);
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.deepEqual([result.outcome, result.reason], ["refreshed", null]);
    assert.deepEqual(cachedIds(), ["demo-1", "demo-9"]);
    assert.deepEqual(folderNames(), ["demo.json"]);
    const catalog = await c.call("model.catalog", {});
    assert.equal(catalog.revision, result.catalog_revision);
    assert.deepEqual(
      catalog.choices.map((ch) => ch.id),
      ["demo/demo-1", "demo/demo-9"],
    );
  });

  test("uncertain commit, rename outcome unknown and not done: reread finds the old cache, cache_write_failed", async () => {
    const c = await uncertainSetup({ MC_AGENT_TEST_COMMIT_FAULT: "rename_outcome_unknown" }, true);
    const before = readFileSync(cacheFile(box, "demo"));
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.deepEqual([result.outcome, result.reason], ["failed", "cache_write_failed"]);
    assert.deepEqual(readFileSync(cacheFile(box, "demo")), before);
    assert.deepEqual(folderNames(), ["demo.json"], "the temp file is removed");
    const catalog = await c.call("model.catalog", {});
    assert.equal(catalog.revision, result.catalog_revision);
    assert.deepEqual(
      catalog.choices.map((ch) => ch.id),
      ["demo/demo-1"],
    );
  });

  test("a normal child ignores the commit fault switch", async () => {
    const c = await uncertainSetup({ MC_AGENT_TEST_COMMIT_FAULT: "rename_outcome_unknown" }, false);
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.deepEqual([result.outcome, result.reason], ["refreshed", null]);
    assert.deepEqual(cachedIds(), ["demo-1", "demo-9"]);
  });

  test("orphan temp files: listing and failures leave them; a successful write removes the target's dead-pid ones only", async () => {
    let answer = 429;
    await setup((_req, res) =>
      answer === 200 ? json(res, 200, openAiList(["demo-1"])) : json(res, answer, {}),
    );
    const folder = join(box.home, "cache", "models");
    // A pid that surely exists no more: a child that has exited.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const names = {
      deadOrphan: `.demo.json.${dead}.0123456789ab.tmp`,
      liveWriter: `.demo.json.${process.pid}.0123456789ab.tmp`,
      otherTarget: `.other.json.${dead}.0123456789ab.tmp`,
      otherNaming: ".demo.json.0123456789ab.tmp",
      notATemp: `demo.json.${dead}.0123456789ab.tmp`,
    };
    for (const name of Object.values(names)) writeFileSync(join(folder, name), "partial");
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    const before = treeDigest(box.home);
    await child.call("model.catalog", {});
    await child.call("model.catalog.status", {});
    const failed = await child.call("model.refresh", { provider: "demo" });
    assert.equal(failed.reason, "rate_limited");
    assert.deepEqual(treeDigest(box.home), before, "listing and a failed refresh write nothing");
    answer = 200;
    const result = await child.call("model.refresh", { provider: "demo" });
    assert.equal(result.outcome, "refreshed");
    const { deadOrphan, ...kept } = names;
    assert.deepEqual(folderNames(), ["demo.json", ...Object.values(kept)].sort());
  });
});

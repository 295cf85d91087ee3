import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import {
  type ChildOptions,
  nextId,
  type Sandbox,
  sandbox,
  startReady,
  TestChild,
} from "../helpers/child.js";
import {
  closedPort,
  type FakeServer,
  json,
  openAiList,
  startServer,
  startSilentListener,
} from "./fake-server.js";
import {
  cacheDoc,
  cacheFile,
  DEMO_MODELS,
  MODEL_CAPS,
  writeCache,
  writeConfig,
  writeJson,
} from "./fixtures.js";

const SECRET = "sk-test-secret-123";
let box: Sandbox;
let child: TestChild | undefined;
let server: FakeServer | undefined;
afterEach(async () => {
  if (child) {
    await child.close();
    assert.ok(!child.stderr.includes(SECRET), "stderr names the credential");
    for (const line of child.rawLines)
      assert.ok(!line.includes(SECRET) && !line.includes("127.0.0.1:"));
  }
  child = undefined;
  await server?.close();
  server = undefined;
  box.cleanup();
});

/** demo on the fake server, a valid previous cache, models.dev on a closed port. */
async function setup(status: number, body: unknown): Promise<TestChild> {
  server = await startServer((_req, res) => json(res, status, body));
  return setupAt(`${server.url}/v1`);
}

async function setupAt(
  baseUrl: string,
  extra: Partial<ChildOptions> = {},
  modelsDevUrl?: string,
): Promise<TestChild> {
  box = sandbox();
  const dead = await closedPort();
  writeConfig(box, {
    providers: { demo: { type: "openai-compatible", base_url: baseUrl, api_key_env: "DEMO_KEY" } },
    enabled_models: ["demo/demo-1"],
    model: "demo/demo-1",
    effort: "medium",
    models_dev_url: modelsDevUrl ?? `${dead}/api.json`,
  });
  writeCache(
    box,
    "demo",
    cacheDoc("demo", { type: "openai-compatible", base_url: baseUrl }, DEMO_MODELS),
  );
  child = await startReady(box, MODEL_CAPS, { ...extra, env: { DEMO_KEY: SECRET, ...extra.env } });
  return child;
}

async function expectFailure(c: TestChild, reason: string): Promise<void> {
  const before = readFileSync(cacheFile(box, "demo"));
  const result = await c.call("model.refresh", { provider: "demo" });
  assert.deepEqual(
    { outcome: result.outcome, reason: result.reason, catalog_error: result.catalog_error },
    { outcome: "failed", reason, catalog_error: null },
  );
  assert.equal(typeof result.catalog_revision, "string");
  assert.deepEqual(readFileSync(cacheFile(box, "demo")), before, "cache bytes unchanged");
}

describe("model.refresh outcomes", () => {
  test("429 is rate_limited", async () => {
    await expectFailure(await setup(429, { error: "slow down" }), "rate_limited");
  });

  test("401 is authentication_rejected, with the bearer key sent", async () => {
    const c = await setup(401, { error: { message: "bad key" } });
    await expectFailure(c, "authentication_rejected");
    assert.equal(server?.seen[0]?.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(server?.seen[0]?.url, "/v1/models");
  });

  test("a keyless custom provider refreshes without any Authorization header", async () => {
    server = await startServer((_req, res) => json(res, 200, openAiList(["local-1"])));
    box = sandbox();
    const baseUrl = `${server.url}/v1`;
    writeConfig(box, {
      providers: { local: { type: "openai-compatible", base_url: baseUrl } },
      enabled_models: ["local/local-1"],
      models_dev_url: `${await closedPort()}/api.json`,
    });
    child = await startReady(box, MODEL_CAPS, { env: { OPENAI_API_KEY: SECRET } });
    const result = await child.call("model.refresh", { provider: "local" });
    assert.equal(result.outcome, "refreshed");
    assert.equal(server.seen.length, 1);
    assert.equal(server.seen[0]?.headers.authorization, undefined);
    assert.equal(server.seen[0]?.url, "/v1/models");
  });

  test("503 is remote_unavailable; a closed port is remote_unavailable", async () => {
    await expectFailure(await setup(503, "down"), "remote_unavailable");
    await child?.close();
    child = undefined;
    box.cleanup();
    await expectFailure(await setupAt(`${await closedPort()}/v1`), "remote_unavailable");
  });

  test("bounds and shapes: each reason, cache untouched byte for byte", async () => {
    const cases: [string, (res: import("node:http").ServerResponse) => void, string][] = [
      ["2 MiB + 1 byte", (res) => json(res, 200, bigBody(2 * 1_048_576 + 1)), "catalog_limit"],
      // An error answer's oversized body is dropped: its status decides.
      ["429, 2 MiB + 1 byte", (res) => json(res, 429, bigBody(2 * 1_048_576 + 1)), "rate_limited"],
      [
        "503, 2 MiB + 1 byte",
        (res) => json(res, 503, bigBody(2 * 1_048_576 + 1)),
        "remote_unavailable",
      ],
      ["2049 models", (res) => json(res, 200, openAiList(ids(2049))), "catalog_limit"],
      ["duplicate IDs", (res) => json(res, 200, openAiList(["a", "b", "a"])), "invalid_catalog"],
      ["unsafe IDs", (res) => json(res, 200, openAiList(["ok", "../etc"])), "invalid_catalog"],
      ["empty list", (res) => json(res, 200, openAiList([])), "empty_catalog"],
      ["non-JSON", (res) => json(res, 200, "<html>oops</html>"), "invalid_catalog"],
      ["wrong shape", (res) => json(res, 200, { models: [] }), "invalid_catalog"],
    ];
    const c = await setup(200, {});
    for (const [name, respond, reason] of cases) {
      assert.ok(server);
      server.route = (_req, res) => respond(res);
      await expectFailure(c, reason).catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
  });

  test("2 MiB exactly is within the body bound", async () => {
    const c = await setup(200, bigBody(2 * 1_048_576));
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.equal(result.outcome, "refreshed");
  });

  test("success: fresh revision, only enabled models offered, selection unchanged, old guard stale", async () => {
    const c = await setup(200, openAiList(["demo-1", "demo-new"]));
    const before = await c.call("model.catalog", {});
    assert.ok(before.cursor === null);
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.deepEqual(result, {
      provider: "demo",
      outcome: "refreshed",
      reason: null,
      catalog_revision: result.catalog_revision,
      catalog_error: null,
      recovery: "reload_catalog",
      configuration_reload: "restart_child",
      selection_unchanged: true,
    });
    assert.ok(result.catalog_revision && result.catalog_revision !== before.revision);
    const after = await c.call("model.catalog", {});
    assert.equal(after.revision, result.catalog_revision);
    assert.deepEqual(
      after.choices.map((ch) => ch.id),
      ["demo/demo-1"],
    );
    assert.deepEqual(after.selection, { model: "demo/demo-1", effort: "medium" });
    const cache = JSON.parse(readFileSync(cacheFile(box, "demo"), "utf8"));
    assert.deepEqual(
      cache.models.map((m: { id: string }) => m.id),
      ["demo-1", "demo-new"],
    );
    assert.equal(
      await c.errorCode("model.select", {
        model: "demo/demo-1",
        effort: null,
        catalog_revision: before.revision,
      }),
      "stale_revision",
    );
    assert.equal(
      await c.errorCode("model.select", {
        model: "demo/demo-new",
        effort: null,
        catalog_revision: after.revision,
      }),
      "model_unavailable",
      "newly listed disabled models stay unselectable",
    );
    const st = await c.request("status", {});
    assert.deepEqual((st.result as { selection: unknown }).selection, {
      model: "demo/demo-1",
      effort: "medium",
    });
  });

  test("a failed refresh still kills earlier cursors and guards", async () => {
    const c = await setup(429, {});
    const before = await c.call("model.catalog.status", {});
    await c.call("model.refresh", { provider: "demo" });
    assert.equal(
      await c.errorCode("model.select", {
        model: "demo/demo-1",
        effort: null,
        catalog_revision: before.revision,
      }),
      "stale_revision",
    );
  });

  test("a server that never answers: cancel is acknowledged, status answers, the refresh is cancelled", async () => {
    const c = await setup(200, {});
    assert.ok(server);
    server.route = () => {}; // never answers
    const before = readFileSync(cacheFile(box, "demo"));
    const id = nextId("refresh");
    const pending = c.request("model.refresh", { provider: "demo" }, id);
    await waitUntil(() => (server?.seen.length ?? 0) > 0);
    const status = await c.request("status", {}, nextId(), 1000);
    assert.equal((status.result as { worker: string }).worker, "busy");
    assert.equal(await c.errorCode("model.refresh", { provider: "demo" }), "busy");
    const ack = await c.call("operation.cancel", { request_id: id });
    assert.deepEqual(ack, { state: "cancelling", request_id: id });
    const answer = await pending;
    assert.equal(answer.error?.code, "operation_cancelled");
    assert.deepEqual(readFileSync(cacheFile(box, "demo")), before);
  });

  test("shutdown during a hanging refresh answers within the cleanup bound", async () => {
    const c = await setup(200, {});
    assert.ok(server);
    server.route = () => {};
    const before = readFileSync(cacheFile(box, "demo"));
    const id = nextId("refresh");
    const pending = c.request("model.refresh", { provider: "demo" }, id);
    await waitUntil(() => (server?.seen.length ?? 0) > 0);
    const started = Date.now();
    const stopped = await c.request("shutdown", {}, nextId("stop"), 5000);
    assert.deepEqual(stopped.result, { state: "stopped" });
    assert.ok(Date.now() - started < 2500, "cleanup bound");
    assert.equal((await pending).error?.code, "operation_cancelled");
    assert.equal((await c.exited).code, 0);
    assert.deepEqual(readFileSync(cacheFile(box, "demo")), before);
  });

  test("past the wall bound a provider is remote_timeout; a slow models.dev only loses enrichment", async () => {
    // A test build shortens the 300 s / 30 s wall bounds to 300 ms; the server never answers.
    const fast = { testMethods: true, env: { MC_AGENT_TEST_HTTP_WALL_MS: "300" } };
    server = await startServer(() => {});
    await expectFailure(await setupAt(`${server.url}/v1`, fast), "remote_timeout");
    await child?.close();
    child = undefined;
    box.cleanup();
    // Only the enrichment bound is shortened here: the provider answers at once, but on a busy
    // machine "at once" may take longer than 300 ms, and that is not what this case is about.
    const slowEnrichment = { testMethods: true, env: { MC_AGENT_TEST_ENRICHMENT_WALL_MS: "300" } };
    const provider = await startServer((_req, res) => json(res, 200, openAiList(["demo-1"])));
    try {
      const c = await setupAt(`${provider.url}/v1`, slowEnrichment, `${server.url}/api.json`);
      const result = await c.call("model.refresh", { provider: "demo" });
      assert.equal(result.outcome, "refreshed");
    } finally {
      await provider.close();
    }
  });

  test("a listener that never accepts is remote_timeout at the connect bound", async () => {
    // A test build shortens the 10 s connect bound to 300 ms; the wall bounds stay 300 s / 30 s,
    // so only the connect bound can end this exchange quickly.
    const listener = await startSilentListener();
    try {
      const fast = { testMethods: true, env: { MC_AGENT_TEST_CONNECT_MS: "300" } };
      const c = await setupAt(`${listener.url}/v1`, fast);
      const started = Date.now();
      await expectFailure(c, "remote_timeout");
      // Generous: without the connect bound this would take 10 s (connect) or 300 s (wall).
      assert.ok(Date.now() - started < 8000, "ended by the shortened connect bound");
    } finally {
      await listener.close();
    }
  });

  test("a bad endpoint or invalid settings are configuration_invalid", async () => {
    const c = await setupAt("ftp://127.0.0.1/v1");
    await expectFailure(c, "configuration_invalid");
    await c.close();
    child = undefined;
    box.cleanup();
    box = sandbox();
    writeConfig(box, { enabled_models: ["nowhere/x"] });
    child = await startReady(box, MODEL_CAPS, { env: { OPENAI_API_KEY: SECRET } });
    const result = await child.call("model.refresh", { provider: "openai" });
    assert.equal(result.reason, "configuration_invalid");
  });

  test("an invalid project file does not fail a refresh: it needs the global file only", async () => {
    server = await startServer((_req, res) => json(res, 200, openAiList(["demo-1", "demo-3"])));
    await (await setupAt(`${server.url}/v1`)).close();
    writeJson(join(box.workspace, ".mc", "config.json"), "{not json");
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: SECRET } });
    const result = await child.call("model.refresh", { provider: "demo" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(catalog.notices, [{ code: "configuration_invalid" }]);
    assert.deepEqual(catalog.selection, { model: "demo/demo-1", effort: "medium" });
  });

  test("a rescan that fails gives a null revision and its safe error", async () => {
    const c = await setup(429, {});
    // Another provider's cache turns into a symlink: the post-refresh scan cannot finish.
    symlinkSync(cacheFile(box, "demo"), cacheFile(box, "openai"));
    const result = await c.call("model.refresh", { provider: "demo" });
    assert.deepEqual(
      {
        reason: result.reason,
        catalog_revision: result.catalog_revision,
        catalog_error: result.catalog_error,
      },
      { reason: "rate_limited", catalog_revision: null, catalog_error: "catalog_unavailable" },
    );
  });

  test("initialize advertises the refresh extension exactly when negotiated", async () => {
    await setup(200, {});
    const other = new TestChild({ cwd: box.workspace, home: box.home });
    try {
      const init = await other.initialize(["model.catalog", "model.refresh"]);
      assert.deepEqual(init.result?.extensions, {
        "model.refresh": {
          providers_per_request: 1,
          cache_bytes: 1048576,
          models: 2048,
          preferences: "unchanged",
        },
      });
    } finally {
      await other.close();
    }
  });

  test("unknown provider or extra fields are invalid_params", async () => {
    const c = await setup(200, {});
    assert.equal(await c.errorCode("model.refresh", { provider: "nope" }), "invalid_params");
    assert.equal(await c.errorCode("model.refresh", { provider: "demo", x: 1 }), "invalid_params");
    assert.equal(
      await c.errorCode("model.refresh", { provider: "a".repeat(257) }),
      "invalid_params",
    );
  });
});

function ids(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `m-${i}`);
}

/** An OpenAI list padded to exactly `bytes`. */
function bigBody(bytes: number): string {
  const text = JSON.stringify(openAiList(["demo-1"]));
  return text + " ".repeat(bytes - text.length);
}

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), "condition never held");
}

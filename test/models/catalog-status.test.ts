import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import type { ProviderStatus } from "../../src/protocol/schemas/models.js";
import { type Sandbox, sandbox, startReady, TestChild } from "../helpers/child.js";
import {
  BUILT_IN_URLS,
  cacheDoc,
  cacheFile,
  DEMO_MODELS,
  demoConfig,
  MODEL_CAPS,
  writeCache,
  writeConfig,
  writeJson,
} from "./fixtures.js";

let box: Sandbox;
let child: TestChild | undefined;
afterEach(async () => {
  await child?.close();
  child = undefined;
  box.cleanup();
});

function statusOf(providers: ProviderStatus[], id: string): ProviderStatus {
  const found = providers.find((p) => p.provider === id);
  assert.ok(found, `no status for ${id}`);
  return found;
}

const DEMO_URL = "http://127.0.0.1:9/v1";
const demoIdentity = { type: "openai-compatible", base_url: DEMO_URL };

describe("model.catalog.status: provider-scoped cached status", () => {
  test("unused providers' cache problems are scoped; the valid enabled choice stays available", async () => {
    box = sandbox();
    const other = { type: "openai-compatible", base_url: "http://127.0.0.1:10/v1" };
    writeConfig(box, {
      providers: {
        demo: { type: "openai-compatible", base_url: DEMO_URL, api_key_env: "DEMO_KEY" },
        missing: { ...other },
        empty: { ...other },
        badjson: { ...other },
        badschema: { ...other },
        moved: { ...other },
      },
      enabled_models: ["demo/demo-1"],
    });
    writeCache(box, "demo", cacheDoc("demo", demoIdentity, DEMO_MODELS));
    writeCache(box, "empty", cacheDoc("empty", other, []));
    writeJson(cacheFile(box, "badjson"), "{not json");
    writeCache(box, "badschema", { ...cacheDoc("badschema", other, DEMO_MODELS), extra: 1 });
    writeCache(
      box,
      "moved",
      cacheDoc("moved", { ...other, base_url: "http://127.0.0.1:11/v1" }, DEMO_MODELS),
    );
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    const status = await child.call("model.catalog.status", {});
    const expected: Record<string, string> = {
      missing: "missing_cache",
      empty: "empty_cache",
      badjson: "invalid_format",
      badschema: "invalid_schema",
      moved: "incompatible_fingerprint",
      openai: "missing_cache",
    };
    for (const [id, catalogStatus] of Object.entries(expected)) {
      const s = statusOf(status.providers, id);
      assert.equal(s.catalog_status, catalogStatus, id);
      assert.equal(s.authentication, "not_checked", id);
      assert.equal(s.relevant, false, id);
      assert.equal(s.recovery, "none", id);
    }
    assert.deepEqual(statusOf(status.providers, "demo"), {
      provider: "demo",
      catalog_status: "available",
      authentication: "ready",
      relevant: true,
      recovery: "none",
    });
    assert.deepEqual(status.notices, []);
    assert.equal(status.configuration_reload, "restart_child");
    assert.deepEqual(
      status.choices.map((c) => c.id),
      ["demo/demo-1"],
    );
    assert.deepEqual(status.choices[0], {
      id: "demo/demo-1",
      provider: "demo",
      model: "demo-1",
      name: "Demo 1",
      efforts: ["low", "medium", "high"],
      default_effort: "medium",
      selectable: true,
    });
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(catalog.notices, []);
    assert.deepEqual(catalog.choices, status.choices);
    assert.equal(catalog.revision, status.revision, "both methods share one snapshot revision");
    assert.equal(catalog.complete, true);
    assert.equal(catalog.cursor, null);
    assert.deepEqual(Object.keys(status.providers[0] ?? {}).sort(), [
      "authentication",
      "catalog_status",
      "provider",
      "recovery",
      "relevant",
    ]);
  });

  test("a relevant provider without credentials needs authentication; its missing cache gets a notice", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    child = await startReady(box, MODEL_CAPS);
    const status = await child.call("model.catalog.status", {});
    assert.deepEqual(statusOf(status.providers, "demo"), {
      provider: "demo",
      catalog_status: "missing_cache",
      authentication: "authentication_unavailable",
      relevant: true,
      recovery: "configure_authentication",
    });
    assert.deepEqual(status.notices, [{ code: "catalog_missing", provider: "demo" }]);
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(catalog.notices, [{ code: "catalog_missing", provider: "demo" }]);
    assert.deepEqual(catalog.choices, []);
  });

  test("an empty key variable counts as unset", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "" } });
    const status = await child.call("model.catalog.status", {});
    assert.equal(statusOf(status.providers, "demo").authentication, "authentication_unavailable");
  });

  test("credentials from the key variable, auth.json, Codex's file and Claude's file make providers ready", async () => {
    box = sandbox();
    writeConfig(box, {
      ...demoConfig(DEMO_URL),
      providers: {
        demo: { type: "openai-compatible", base_url: DEMO_URL, api_key_env: "DEMO_KEY" },
        filed: { type: "openai-compatible", base_url: DEMO_URL },
      },
      enabled_models: [
        "demo/demo-1",
        "filed/m",
        "codex/gpt-5",
        "anthropic/claude-x",
        "openai/gpt-5",
      ],
    });
    writeJson(join(box.home, "auth.json"), { filed: { type: "api_key", key: "sk-file" } });
    writeJson(join(box.home, "no-codex", "auth.json"), {
      OPENAI_API_KEY: null,
      tokens: { access_token: "a.b.c", refresh_token: "r", account_id: "acct" },
      last_refresh: "2026-11-01T00:00:00Z",
    });
    writeJson(join(box.home, "no-claude", ".credentials.json"), {
      claudeAiOauth: { accessToken: "at", refreshToken: "rt", expiresAt: 1000 },
    });
    writeCache(box, "openai", cacheDoc("openai", BUILT_IN_URLS.openai, [{ id: "gpt-5" }]));
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "from-env" } });
    const status = await child.call("model.catalog.status", {});
    for (const id of ["demo", "filed", "codex", "anthropic"])
      assert.equal(statusOf(status.providers, id).authentication, "ready", id);
    // openai is relevant, has a valid cache, but no key anywhere.
    assert.deepEqual(statusOf(status.providers, "openai"), {
      provider: "openai",
      catalog_status: "available",
      authentication: "authentication_unavailable",
      relevant: true,
      recovery: "configure_authentication",
    });
  });

  test("a custom provider with no key configured is keyless and ready; a named key must be set", async () => {
    box = sandbox();
    writeConfig(box, {
      providers: {
        local: { type: "openai-compatible", base_url: DEMO_URL },
        named: { type: "openai-compatible", base_url: DEMO_URL, api_key_env: "NAMED_KEY" },
        emptyfile: { type: "openai-compatible", base_url: DEMO_URL },
      },
      enabled_models: ["local/m", "named/m", "emptyfile/m", "openai/gpt-5"],
    });
    // An auth.json entry is a configured key: an empty one is no credential, not keyless.
    writeJson(join(box.home, "auth.json"), { emptyfile: { type: "api_key", key: "" } });
    child = await startReady(box, MODEL_CAPS, { env: { NAMED_KEY: "" } });
    const status = await child.call("model.catalog.status", {});
    assert.equal(statusOf(status.providers, "local").authentication, "ready");
    for (const id of ["named", "emptyfile", "openai"])
      assert.equal(statusOf(status.providers, id).authentication, "authentication_unavailable", id);
  });

  test("an expired Claude token without a refresh token is not ready", async () => {
    box = sandbox();
    writeConfig(box, { enabled_models: ["anthropic/claude-x"] });
    writeJson(join(box.home, "no-claude", ".credentials.json"), {
      claudeAiOauth: { accessToken: "at", expiresAt: 1000 },
    });
    child = await startReady(box, MODEL_CAPS);
    const status = await child.call("model.catalog.status", {});
    assert.equal(
      statusOf(status.providers, "anthropic").authentication,
      "authentication_unavailable",
    );
  });

  test("recovery: refresh when an enabled model is absent, enable when only unused models are cached", async () => {
    box = sandbox();
    writeConfig(box, { ...demoConfig(DEMO_URL), enabled_models: ["demo/demo-1", "demo/gone"] });
    writeCache(box, "demo", cacheDoc("demo", demoIdentity, DEMO_MODELS));
    writeCache(box, "openai", cacheDoc("openai", BUILT_IN_URLS.openai, [{ id: "gpt-5" }]));
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    const status = await child.call("model.catalog.status", {});
    assert.equal(statusOf(status.providers, "demo").recovery, "refresh_catalog");
    assert.equal(statusOf(status.providers, "openai").recovery, "enable_models_and_restart");
    assert.deepEqual(
      status.choices.map((c) => c.id),
      ["demo/demo-1"],
    );
  });

  test("the preferred model is the initial selection and makes its provider relevant", async () => {
    box = sandbox();
    writeConfig(box, { ...demoConfig(DEMO_URL), model: "demo/demo-2", effort: "low" });
    writeJson(join(box.workspace, ".mc", "config.json"), { effort: "high" });
    writeCache(box, "demo", cacheDoc("demo", demoIdentity, DEMO_MODELS));
    child = await startReady(box, MODEL_CAPS, { env: { DEMO_KEY: "k" } });
    const status = await child.call("model.catalog.status", {});
    assert.deepEqual(status.selection, { model: "demo/demo-2", effort: "high" });
    // demo-2 is cached but not enabled: the user must enable it.
    assert.equal(statusOf(status.providers, "demo").recovery, "enable_models_and_restart");
    const st = await child.request("status", {});
    assert.deepEqual((st.result as { selection: unknown }).selection, {
      model: "demo/demo-2",
      effort: "high",
    });
  });

  test("an invalid settings file leaves the child serving with defaults and a notice", async () => {
    box = sandbox();
    writeConfig(box, { ...demoConfig(DEMO_URL), surprise: true });
    child = await startReady(box, MODEL_CAPS);
    const status = await child.call("model.catalog.status", {});
    assert.deepEqual(status.notices, [{ code: "configuration_invalid" }]);
    assert.deepEqual(
      status.providers.map((p) => p.provider),
      ["openai", "anthropic", "codex"],
    );
    assert.deepEqual(status.selection, { model: null, effort: null });
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(catalog.notices, [{ code: "configuration_invalid" }]);
  });

  test("an invalid project file also falls back to defaults", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    writeJson(join(box.workspace, ".mc", "config.json"), {
      model: "demo/demo-1",
      enabled_models: [],
    });
    child = await startReady(box, MODEL_CAPS);
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(catalog.notices, [{ code: "configuration_invalid" }]);
  });

  test("a client negotiating only session.list and model.catalog keeps the cached result fields", async () => {
    box = sandbox();
    writeConfig(box, demoConfig(DEMO_URL));
    writeCache(box, "demo", cacheDoc("demo", demoIdentity, DEMO_MODELS));
    child = new TestChild({ cwd: box.workspace, home: box.home });
    // session.list is another domain's; until this build has it, negotiate model.catalog alone.
    let init = await child.initialize(["session.list", "model.catalog"]);
    if (init.error?.code === "unsupported_capability")
      init = await child.initialize(["model.catalog"]);
    assert.ok(init.result);
    assert.deepEqual(init.result.extensions, {});
    const catalog = await child.call("model.catalog", {});
    assert.deepEqual(Object.keys(catalog).sort(), [
      "choices",
      "complete",
      "cursor",
      "notices",
      "revision",
      "selection",
    ]);
    assert.equal(await child.errorCode("model.catalog.status", {}), "unsupported_capability");
    assert.equal(
      await child.errorCode("model.refresh", { provider: "demo" }),
      "unsupported_capability",
    );
  });
});

describe("cache validation order (one test per adjacent pair)", () => {
  const cases: [string, (doc: Record<string, unknown>) => unknown, string][] = [
    ["format before schema", (d) => ({ ...d, version: 2, extra: true }), "invalid_format"],
    [
      "schema/provider before fingerprint",
      (d) => ({ ...d, provider: "other", fingerprint: "0".repeat(64) }),
      "invalid_schema",
    ],
    [
      "provider identity before empty",
      (d) => ({ ...d, provider: "other", models: [] }),
      "invalid_schema",
    ],
    [
      "fingerprint before empty",
      (d) => ({ ...d, fingerprint: "0".repeat(64), models: [] }),
      "incompatible_fingerprint",
    ],
    [
      "fingerprint before entry identities",
      (d) => ({ ...d, fingerprint: "0".repeat(64), models: [{ id: "x" }, { id: "x" }] }),
      "incompatible_fingerprint",
    ],
    ["empty entries", (d) => ({ ...d, models: [] }), "empty_cache"],
    ["duplicate entries", (d) => ({ ...d, models: [{ id: "x" }, { id: "x" }] }), "invalid_schema"],
    ["unsafe entries", (d) => ({ ...d, models: [{ id: "../x" }] }), "invalid_schema"],
  ];
  test("each pair reports the earlier check's status", async () => {
    box = sandbox();
    const providers: Record<string, unknown> = {};
    cases.forEach((_, i) => {
      providers[`p${i}`] = { ...demoIdentity };
    });
    writeConfig(box, { providers });
    cases.forEach(([, mutate], i) => {
      writeCache(box, `p${i}`, mutate(cacheDoc(`p${i}`, demoIdentity, DEMO_MODELS)));
    });
    child = await startReady(box, MODEL_CAPS);
    const status = await child.call("model.catalog.status", {});
    cases.forEach(([name, , expected], i) => {
      assert.equal(statusOf(status.providers, `p${i}`).catalog_status, expected, name);
    });
  });
});

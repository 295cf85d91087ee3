import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { closedPort, type FakeServer, json, startServer } from "./fake-server.js";
import { cacheFile, MODEL_CAPS, writeConfig, writeJson } from "./fixtures.js";

let box: Sandbox;
let child: TestChild | undefined;
const servers: FakeServer[] = [];
afterEach(async () => {
  if (child) {
    await child.close();
    for (const secret of [
      "old-access",
      "new-access",
      "rt-1",
      "rt-2",
      "sk-ant",
      "opaque-old",
      "opaque-new",
      "claude-oauth",
    ])
      assert.ok(!child.stderr.includes(secret), "stderr names a credential");
  }
  child = undefined;
  for (const s of servers.splice(0)) await s.close();
  box.cleanup();
});

async function server(route: Parameters<typeof startServer>[0]): Promise<FakeServer> {
  const s = await startServer(route);
  servers.push(s);
  return s;
}

function jwt(expSeconds: number, marker: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ exp: expSeconds, marker })}.sig`;
}

function readCache(provider: string) {
  return JSON.parse(readFileSync(cacheFile(box, provider), "utf8")) as {
    models: {
      id: string;
      name?: string | null;
      efforts?: string[];
      default_effort?: string | null;
      context_window?: number;
    }[];
  };
}

describe("codex credential renewal", () => {
  const expired = jwt(1_000_000, "old-access");
  const renewed = jwt(Math.floor(Date.now() / 1000) + 3600, "new-access");

  async function setupCodex(tokenAnswer: (res: import("node:http").ServerResponse) => void) {
    box = sandbox();
    const auth = await server((_req, res) => tokenAnswer(res));
    const models = await server((req, res) => {
      if (req.headers.authorization !== `Bearer ${renewed}`) return json(res, 401, {});
      json(res, 200, {
        models: [
          {
            slug: "gpt-5-codex",
            display_name: "GPT-5 Codex",
            supported_reasoning_levels: [
              { effort: "low" },
              { effort: "medium" },
              { effort: "high" },
            ],
            default_reasoning_level: "medium",
            context_window: 272000,
          },
        ],
      });
    });
    writeConfig(box, {
      providers: {
        codex: {
          base_url: `${models.url}/backend-api/codex`,
          token_url: `${auth.url}/oauth/token`,
        },
      },
      enabled_models: ["codex/gpt-5-codex"],
      models_dev_url: `${await closedPort()}/api.json`,
    });
    const codexAuth = join(box.home, "no-codex", "auth.json");
    writeJson(codexAuth, {
      OPENAI_API_KEY: null,
      tokens: {
        id_token: "idt",
        access_token: expired,
        refresh_token: "rt-1",
        account_id: "acct-1",
      },
      last_refresh: "2026-01-01T00:00:00Z",
    });
    child = await startReady(box, MODEL_CAPS);
    return { auth, models, codexAuth, child };
  }

  test("an expired JWT is renewed once, persisted 0600 where it came from, and used", async () => {
    const {
      auth,
      models,
      codexAuth,
      child: c,
    } = await setupCodex((res) =>
      json(res, 200, { access_token: renewed, refresh_token: "rt-2", id_token: "idt-2" }),
    );
    const result = await c.call("model.refresh", { provider: "codex" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    assert.equal(auth.seen.length, 1);
    assert.equal(auth.seen[0]?.method, "POST");
    assert.deepEqual(JSON.parse(auth.seen[0]?.body ?? "{}"), {
      client_id: "app_EMoamEEZ73f0CkXaXp7hrann",
      grant_type: "refresh_token",
      refresh_token: "rt-1",
    });
    assert.equal(models.seen[0]?.headers.authorization, `Bearer ${renewed}`);
    assert.equal(models.seen[0]?.headers["chatgpt-account-id"], "acct-1");
    assert.ok(models.seen[0]?.url.startsWith("/backend-api/codex/models"));
    const file = JSON.parse(readFileSync(codexAuth, "utf8"));
    assert.equal(file.tokens.access_token, renewed);
    assert.equal(file.tokens.refresh_token, "rt-2");
    assert.equal(file.tokens.id_token, "idt-2");
    assert.equal(file.tokens.account_id, "acct-1");
    assert.equal(file.OPENAI_API_KEY, null);
    assert.equal(statSync(codexAuth).mode & 0o777, 0o600);
    assert.deepEqual(readCache("codex").models, [
      {
        id: "gpt-5-codex",
        name: "GPT-5 Codex",
        context_window: 272000,
        efforts: ["low", "medium", "high"],
        default_effort: "medium",
      },
    ]);
    const catalog = await c.call("model.catalog", {});
    assert.deepEqual(
      catalog.choices.map((ch) => ch.id),
      ["codex/gpt-5-codex"],
    );
  });

  test("refresh_token_reused is authentication_rejected and leaves the file untouched", async () => {
    const {
      codexAuth,
      child: c,
      models,
    } = await setupCodex((res) =>
      json(res, 401, { error: { code: "refresh_token_reused", message: "reused" } }),
    );
    const before = readFileSync(codexAuth);
    const result = await c.call("model.refresh", { provider: "codex" });
    assert.equal(result.reason, "authentication_rejected");
    assert.deepEqual(readFileSync(codexAuth), before);
    assert.equal(models.seen.length, 0);
  });

  test("a 401 with a body past the 2 MiB bound is still authentication_rejected", async () => {
    // Found by the refresh fuzz (seed 743261897): the size failure hid the status.
    const { child: c, codexAuth } = await setupCodex((res) =>
      json(res, 401, { error: "invalid_grant", pad: "p".repeat(2 * 1_048_576) }),
    );
    const before = readFileSync(codexAuth);
    const result = await c.call("model.refresh", { provider: "codex" });
    assert.equal(result.reason, "authentication_rejected");
    assert.deepEqual(readFileSync(codexAuth), before);
  });

  test("a 400 with refresh_token_expired is authentication_rejected", async () => {
    const { child: c } = await setupCodex((res) =>
      json(res, 400, { error: "refresh_token_expired" }),
    );
    const result = await c.call("model.refresh", { provider: "codex" });
    assert.equal(result.reason, "authentication_rejected");
  });

  test("mc's own auth.json entry: expired is renewed once, persisted 0600 in place of that entry only", async () => {
    box = sandbox();
    const tokenAnswer = { access_token: "opaque-new", refresh_token: "rt-2", expires_in: 3600 };
    const auth = await server((_req, res) => json(res, 200, tokenAnswer));
    const models = await server((req, res) => {
      if (req.headers.authorization !== "Bearer opaque-new") return json(res, 401, {});
      json(res, 200, { models: [{ slug: "gpt-5-codex", display_name: "GPT-5 Codex" }] });
    });
    writeConfig(box, {
      providers: {
        codex: { base_url: `${models.url}/codex`, token_url: `${auth.url}/oauth/token` },
      },
      enabled_models: ["codex/gpt-5-codex"],
      models_dev_url: `${await closedPort()}/api.json`,
    });
    const others = {
      openai: { type: "api_key", key: "sk-other" },
      anthropic: { type: "oauth", access_token: "ant-a", refresh_token: "ant-r", expires_at: 5 },
    };
    const mcAuth = join(box.home, "auth.json");
    writeJson(mcAuth, {
      ...others,
      codex: {
        type: "oauth",
        access_token: "opaque-old",
        refresh_token: "rt-1",
        expires_at: "2020-01-01T00:00:00Z",
      },
    });
    // Codex's own file exists too: mc's entry comes first and Codex's file is never touched.
    const codexAuth = join(box.home, "no-codex", "auth.json");
    writeJson(codexAuth, { tokens: { access_token: "old-access", refresh_token: "rt-codex" } });
    const codexBefore = readFileSync(codexAuth);
    const inodeBefore = statSync(mcAuth).ino;
    child = await startReady(box, MODEL_CAPS);
    const before = Date.now();
    const result = await child.call("model.refresh", { provider: "codex" });
    const after = Date.now();
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    assert.equal(auth.seen.length, 1);
    assert.equal(JSON.parse(auth.seen[0]?.body ?? "{}").refresh_token, "rt-1");
    assert.equal(models.seen.length, 1);
    assert.equal(models.seen[0]?.headers.authorization, "Bearer opaque-new");
    const file = JSON.parse(readFileSync(mcAuth, "utf8"));
    assert.deepEqual({ openai: file.openai, anthropic: file.anthropic }, others);
    assert.deepEqual(Object.keys(file).sort(), ["anthropic", "codex", "openai"]);
    const { expires_at: expiresAt, ...entry } = file.codex;
    assert.deepEqual(entry, { type: "oauth", access_token: "opaque-new", refresh_token: "rt-2" });
    assert.ok(expiresAt >= before + 3_600_000 && expiresAt <= after + 3_600_000, `${expiresAt}`);
    assert.equal(statSync(mcAuth).mode & 0o777, 0o600);
    assert.notEqual(statSync(mcAuth).ino, inodeBefore, "replaced by rename, not rewritten");
    assert.deepEqual(
      readdirSync(box.home).filter((n) => n.endsWith(".tmp")),
      [],
    );
    assert.deepEqual(readFileSync(codexAuth), codexBefore);
    // The renewed entry is read back: the next refresh needs no renewal.
    const again = await child.call("model.refresh", { provider: "codex" });
    assert.equal(again.outcome, "refreshed");
    assert.equal(auth.seen.length, 1);
    assert.equal(models.seen[1]?.headers.authorization, "Bearer opaque-new");
  });

  test("no codex credentials at all is authentication_unavailable", async () => {
    box = sandbox();
    writeConfig(box, { models_dev_url: `${await closedPort()}/api.json` });
    child = await startReady(box, MODEL_CAPS);
    const result = await child.call("model.refresh", { provider: "codex" });
    assert.equal(result.reason, "authentication_unavailable");
  });
});

describe("anthropic and models.dev", () => {
  const pages = [
    {
      data: [{ type: "model", id: "claude-a", display_name: "Claude A" }],
      has_more: true,
      first_id: "claude-a",
      last_id: "claude-a",
    },
    {
      data: [{ type: "model", id: "claude-b", display_name: "Claude B" }],
      has_more: true,
      first_id: "claude-b",
      last_id: "claude-b",
    },
    {
      data: [{ type: "model", id: "claude-c" }],
      has_more: false,
      first_id: "claude-c",
      last_id: "claude-c",
    },
  ];

  async function setupAnthropic(
    modelsDevUrl: string,
    env: Record<string, string> = { ANTHROPIC_API_KEY: "sk-ant" },
    prepare: () => void = () => {},
  ) {
    box = sandbox();
    prepare();
    const api = await server((req, res) => {
      const after = new URL(req.url, "http://x").searchParams.get("after_id");
      const index = after === null ? 0 : pages.findIndex((p) => p.last_id === after) + 1;
      json(res, 200, pages[index]);
    });
    writeConfig(box, {
      providers: { anthropic: { base_url: api.url } },
      enabled_models: ["anthropic/claude-a"],
      models_dev_url: modelsDevUrl,
    });
    child = await startReady(box, MODEL_CAPS, { env });
    return { api, child };
  }

  test("pages over three pages with after_id; models.dev fills names, windows and efforts", async () => {
    const dev = await server((_req, res) =>
      json(res, 200, {
        anthropic: {
          id: "anthropic",
          models: {
            "claude-a": {
              id: "claude-a",
              name: "Other name",
              reasoning: false,
              limit: { context: 200000, output: 8192 },
            },
            "claude-c": {
              id: "claude-c",
              name: "Claude C",
              reasoning: true,
              limit: { context: 100000, output: 8192 },
            },
            "claude-unlisted": { id: "claude-unlisted", name: "Never added" },
          },
        },
      }),
    );
    const { api, child: c } = await setupAnthropic(`${dev.url}/api.json`);
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    assert.equal(api.seen.length, 3);
    assert.equal(api.seen[0]?.headers["x-api-key"], "sk-ant");
    assert.equal(api.seen[0]?.headers["anthropic-version"], "2023-06-01");
    assert.ok(api.seen[0]?.url.startsWith("/v1/models"));
    assert.ok(api.seen[1]?.url.includes("after_id=claude-a"));
    assert.ok(api.seen[2]?.url.includes("after_id=claude-b"));
    assert.equal(dev.seen.length, 1);
    assert.deepEqual(readCache("anthropic").models, [
      { id: "claude-a", name: "Claude A", context_window: 200000 },
      { id: "claude-b", name: "Claude B" },
      {
        id: "claude-c",
        name: "Claude C",
        context_window: 100000,
        efforts: ["low", "medium", "high"],
        default_effort: "medium",
      },
    ]);
  });

  test("models.dev down still refreshes", async () => {
    const { child: c } = await setupAnthropic(`${await closedPort()}/api.json`);
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed");
    assert.deepEqual(
      readCache("anthropic").models.map((m) => m.id),
      ["claude-a", "claude-b", "claude-c"],
    );
  });

  test("models.dev answering garbage still refreshes", async () => {
    const dev = await server((_req, res) => json(res, 500, "nope"));
    const { child: c } = await setupAnthropic(`${dev.url}/api.json`);
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed");
  });

  function writeClaudeCredentials(): void {
    writeJson(join(box.home, "no-claude", ".credentials.json"), {
      claudeAiOauth: {
        accessToken: "claude-oauth-token",
        refreshToken: "claude-oauth-refresh",
        expiresAt: Date.now() + 3_600_000,
        scopes: ["user:inference"],
      },
    });
  }

  test("a Claude OAuth token is sent as a bearer with the oauth beta header, never as x-api-key", async () => {
    const dev = `${await closedPort()}/api.json`;
    const { api, child: c } = await setupAnthropic(dev, {}, writeClaudeCredentials);
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    assert.equal(api.seen.length, 3);
    for (const seen of api.seen) {
      assert.equal(seen.headers.authorization, "Bearer claude-oauth-token");
      assert.equal(seen.headers["anthropic-beta"], "oauth-2025-04-20");
      assert.equal(seen.headers["anthropic-version"], "2023-06-01");
      assert.equal(seen.headers["x-api-key"], undefined);
    }
  });

  test("an API key wins over a Claude OAuth token: x-api-key only", async () => {
    const dev = `${await closedPort()}/api.json`;
    const { api, child: c } = await setupAnthropic(dev, undefined, writeClaudeCredentials);
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    for (const seen of api.seen) {
      assert.equal(seen.headers["x-api-key"], "sk-ant");
      assert.equal(seen.headers.authorization, undefined);
      assert.equal(seen.headers["anthropic-beta"], undefined);
    }
  });

  test("an api_key entry in mc's auth.json also wins over a Claude OAuth token", async () => {
    const dev = `${await closedPort()}/api.json`;
    const { api, child: c } = await setupAnthropic(dev, {}, () => {
      writeClaudeCredentials();
      writeJson(join(box.home, "auth.json"), {
        anthropic: { type: "api_key", key: "sk-ant-file" },
      });
    });
    const result = await c.call("model.refresh", { provider: "anthropic" });
    assert.equal(result.outcome, "refreshed", JSON.stringify(result));
    assert.equal(api.seen[0]?.headers["x-api-key"], "sk-ant-file");
    assert.equal(api.seen[0]?.headers.authorization, undefined);
  });
});

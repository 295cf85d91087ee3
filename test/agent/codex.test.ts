import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { createCodexProvider } from "../../src/agent/providers/codex.js";
import type { CodexCredential } from "../../src/credentials/discovery.js";
import { bodies, responsesReply, startScriptedServer } from "../fixtures/responses-server.js";
import type { ScriptedServer } from "../fixtures/scripted-sse.js";
import { type FakeServer, json, startServer } from "../models/fake-server.js";
import {
  doneOf,
  drain,
  modelRequest,
  options,
  providerAt,
  READ_TOOL,
  secretOnlyIn,
  textOf,
  toolRound,
} from "./provider-helpers.js";

/** A JWT-shaped access token (unsigned: only its claims matter here). */
function jwt(expSeconds: number, account = "acct-jwt"): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ exp: expSeconds, "https://api.openai.com/auth": { chatgpt_account_id: account } })}.sig`;
}
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

describe("codex: Responses at the ChatGPT backend", () => {
  let backend: ScriptedServer;
  let auth: FakeServer;
  let tokenAnswers: ((res: import("node:http").ServerResponse) => void)[];
  let renewedToken: string;
  let dir: string;
  let codexAuth: string;

  before(async () => {
    backend = await startScriptedServer();
    auth = await startServer((_req, res) => {
      const answer = tokenAnswers.shift();
      if (answer) answer(res);
      else json(res, 500, { error: "unscripted" });
    });
  });
  after(async () => {
    await backend.close();
    await auth.close();
  });
  beforeEach(() => {
    backend.seen.length = 0;
    auth.seen.length = 0;
    renewedToken = jwt(inSeconds(3600), "acct-renewed");
    tokenAnswers = [
      (res) =>
        json(res, 200, {
          access_token: renewedToken,
          refresh_token: "rt-2",
          id_token: "idt-2",
          expires_in: 3600,
        }),
    ];
    dir = mkdtempSync(join(tmpdir(), "mc-codex-"));
    mkdirSync(join(dir, "codex"));
    codexAuth = join(dir, "codex", "auth.json");
  });

  /** A Codex login in Codex's own file (kept with fields mc does not own). */
  function codexLogin(access: string): CodexCredential {
    writeFileSync(
      codexAuth,
      JSON.stringify({
        OPENAI_API_KEY: null,
        tokens: {
          id_token: "idt-1",
          access_token: access,
          refresh_token: "rt-1",
          account_id: "acct-1",
        },
        last_refresh: "2026-01-01T00:00:00Z",
        preferred: "keep me",
      }),
      { mode: 0o600 },
    );
    return {
      kind: "codex",
      source: "codex",
      access_token: access,
      refresh_token: "rt-1",
      account_id: "acct-1",
      expires_at_ms: null,
      last_refresh_ms: Date.parse("2026-01-01T00:00:00Z"),
    };
  }

  function codex(credential: CodexCredential) {
    const provider = {
      ...providerAt("codex", `${backend.url}/backend-api/codex`),
      token_url: `${auth.url}/oauth/token`,
    };
    return createCodexProvider(
      options(provider, credential, {
        home: dir,
        env: { CODEX_HOME: join(dir, "codex"), HOME: dir },
      }),
    );
  }

  test("a valid token: the call carries the bearer, the account header and the backend's fields", async () => {
    const access = jwt(inSeconds(3600));
    backend.script(responsesReply({ text: ["Hi ", "there"], usage: { input: 9, output: 2 } }));
    const { events, failure } = await drain(
      codex(codexLogin(access)).stream(modelRequest({ conversation_id: "sess-42" })),
    );
    assert.equal(failure, null);
    assert.equal(textOf(events), "Hi there");
    assert.equal(doneOf(events).stop, "end_turn");
    assert.equal(auth.seen.length, 0, "no renewal for a token that lives on");
    const seen = backend.seen[0];
    assert.ok(seen);
    assert.equal(seen.url, "/backend-api/codex/responses");
    assert.equal(seen.headers.authorization, `Bearer ${access}`);
    assert.equal(seen.headers["chatgpt-account-id"], "acct-1");
    assert.equal(seen.headers.originator, "mc-agent");
    assert.equal(seen.headers.session_id, "sess-42");
    assert.equal(seen.headers["openai-beta"], "responses=experimental");
    assert.deepEqual(secretOnlyIn(seen, access, "authorization"), []);
    const body = bodies(backend)[0];
    assert.equal(body?.store, false);
    assert.equal(body?.stream, true);
    assert.equal(body?.instructions, "You are a test assistant.");
    assert.equal(body?.prompt_cache_key, "sess-42");
    assert.equal(body?.reasoning, undefined);
    assert.equal(body?.max_output_tokens, undefined);
  });

  test("effort maps to reasoning.effort; a tool result goes back under its call_id", async () => {
    backend.script(responsesReply({ text: ["ok"] }));
    const { failure } = await drain(
      codex(codexLogin(jwt(inSeconds(3600)))).stream(
        modelRequest({ effort: "xhigh", tools: [READ_TOOL], context: toolRound("codex/gpt-test") }),
      ),
    );
    assert.equal(failure, null);
    const body = bodies(backend)[0];
    assert.deepEqual(body?.reasoning, { effort: "xhigh", summary: "auto" });
    assert.deepEqual(body?.include, ["reasoning.encrypted_content"]);
    const input = body?.input as Record<string, unknown>[];
    assert.deepEqual(input.at(-1), {
      type: "function_call_output",
      call_id: "call_1",
      output: "contents of a",
    });
  });

  test("a token expiring within a minute is renewed first, and written back whole with mode 0600", async () => {
    const provider = codex(codexLogin(jwt(inSeconds(30))));
    backend.script(responsesReply({ text: ["renewed"] }), responsesReply({ text: ["again"] }));
    const first = await drain(provider.stream(modelRequest()));
    assert.equal(first.failure, null);
    assert.equal(auth.seen.length, 1);
    const exchange = JSON.parse(auth.seen[0]?.body ?? "{}");
    assert.equal(exchange.grant_type, "refresh_token");
    assert.equal(exchange.refresh_token, "rt-1");
    assert.equal(backend.seen[0]?.headers.authorization, `Bearer ${renewedToken}`);
    const file = JSON.parse(readFileSync(codexAuth, "utf8"));
    assert.equal(file.tokens.access_token, renewedToken);
    assert.equal(file.tokens.refresh_token, "rt-2");
    assert.equal(file.tokens.id_token, "idt-2");
    assert.equal(file.tokens.account_id, "acct-1");
    assert.equal(file.preferred, "keep me");
    assert.equal(file.OPENAI_API_KEY, null);
    assert.notEqual(file.last_refresh, "2026-01-01T00:00:00Z");
    assert.equal(statSync(codexAuth).mode & 0o777, 0o600);
    // The same provider keeps the renewed token: no second renewal.
    const second = await drain(provider.stream(modelRequest()));
    assert.equal(second.failure, null);
    assert.equal(auth.seen.length, 1);
    assert.equal(backend.seen[1]?.headers.authorization, `Bearer ${renewedToken}`);
  });

  test("a 401 renews once and retries once", async () => {
    const access = jwt(inSeconds(3600));
    backend.script(
      { kind: "status", status: 401, body: { error: { message: "token revoked" } } },
      responsesReply({ text: ["after renewal"] }),
    );
    const { events, failure } = await drain(codex(codexLogin(access)).stream(modelRequest()));
    assert.equal(failure, null);
    assert.equal(textOf(events), "after renewal");
    assert.equal(auth.seen.length, 1);
    assert.deepEqual(
      backend.seen.map((s) => s.headers.authorization),
      [`Bearer ${access}`, `Bearer ${renewedToken}`],
    );

    backend.seen.length = 0;
    auth.seen.length = 0;
    tokenAnswers.push((res) =>
      json(res, 200, { access_token: jwt(inSeconds(3600)), refresh_token: "rt-3" }),
    );
    backend.script(
      { kind: "status", status: 401, body: { error: { message: "no" } } },
      { kind: "status", status: 401, body: { error: { message: "still no" } } },
    );
    const twice = await drain(codex(codexLogin(access)).stream(modelRequest()));
    assert.equal(twice.failure?.code, "authentication_rejected");
    assert.equal(backend.seen.length, 2, "one retry only");
    assert.equal(auth.seen.length, 1);
  });

  test("a rejected renewal is authentication_rejected, and the file stays as it was", async () => {
    for (const answer of [
      (res: import("node:http").ServerResponse) =>
        json(res, 400, { error: { code: "refresh_token_reused" } }),
      (res: import("node:http").ServerResponse) => json(res, 401, { error: "invalid_grant" }),
    ]) {
      tokenAnswers = [answer];
      backend.seen.length = 0;
      const credential = codexLogin(jwt(inSeconds(10)));
      const before = readFileSync(codexAuth, "utf8");
      const { failure } = await drain(codex(credential).stream(modelRequest()));
      assert.equal(failure?.code, "authentication_rejected");
      assert.equal(backend.seen.length, 0, "no model call with a dead token");
      assert.equal(readFileSync(codexAuth, "utf8"), before);
      assert.ok(!failure.message.includes(auth.url));
    }
  });

  test("mc's own entry: account id from the token's claim, renewed entry written with mode 0600", async () => {
    const credential: CodexCredential = {
      kind: "codex",
      source: "mc",
      access_token: jwt(inSeconds(20), "acct-claim"),
      refresh_token: "rt-mc",
      account_id: null,
      expires_at_ms: null,
      last_refresh_ms: null,
    };
    writeFileSync(
      join(dir, "auth.json"),
      JSON.stringify({ other: { type: "api_key", key: "k" } }),
      { mode: 0o600 },
    );
    backend.script(responsesReply({ text: ["ok"] }));
    const { failure } = await drain(codex(credential).stream(modelRequest()));
    assert.equal(failure, null);
    assert.equal(backend.seen[0]?.headers["chatgpt-account-id"], "acct-renewed");
    const file = JSON.parse(readFileSync(join(dir, "auth.json"), "utf8"));
    assert.equal(file.codex.access_token, renewedToken);
    assert.equal(file.codex.refresh_token, "rt-2");
    assert.equal(file.other.key, "k");
    assert.equal(statSync(join(dir, "auth.json")).mode & 0o777, 0o600);
  });

  test("no login, HTTP failures, and an abort during renewal", async () => {
    const none = await drain(codex(null as unknown as CodexCredential).stream(modelRequest()));
    assert.equal(none.failure?.code, "authentication_rejected");

    backend.script({
      kind: "status",
      status: 429,
      body: { error: { message: "limit" } },
      headers: { "retry-after": "3" },
    });
    const limited = await drain(codex(codexLogin(jwt(inSeconds(3600)))).stream(modelRequest()));
    assert.equal(limited.failure?.code, "rate_limited");
    assert.equal(limited.failure?.retryAfterMs, 3000);

    tokenAnswers = [() => {}]; // the token endpoint never answers
    const controller = new AbortController();
    const run = drain(
      codex(codexLogin(jwt(inSeconds(5)))).stream(modelRequest({ signal: controller.signal })),
    );
    const deadline = Date.now() + 30_000;
    while (auth.seen.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    assert.deepEqual(await run, { events: [], failure: null });
  });
});

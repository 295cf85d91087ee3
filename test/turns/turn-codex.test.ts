import assert from "node:assert/strict";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bodies, responsesReply } from "../fixtures/responses-server.js";
import type { Sandbox } from "../helpers/child.js";
import { unprivilegedChild } from "../helpers/unprivileged.js";
import { json } from "../models/fake-server.js";
import { writeJson } from "../models/fixtures.js";
import { assertNothingLeaked, BODY_MARKER, forbiddenOf } from "./leaks.js";
import {
  assertSecretOnlyIn,
  codexAuthPath,
  jwt,
  type ProviderWorld,
  type ProviderWorldOptions,
  providerWorld,
  selectModel,
} from "./provider-world.js";
import { runTurn, startTurn, typesOf } from "./turn-harness.js";

/**
 * `codex`: the Responses wire format at a loopback "ChatGPT Codex backend", with the OAuth bearer
 * and account of a Codex login (CODEX_HOME/auth.json) and renewals at a loopback token endpoint.
 */

const HOUR_S = 3600;
const nowS = () => Math.floor(Date.now() / 1000);
const token = (name: string, expiresInS: number) =>
  jwt({
    exp: nowS() + expiresInS,
    jti: name,
    "https://api.openai.com/auth": { chatgpt_account_id: "acct-from-claim" },
  });

/** Codex's own auth.json, with fields mc does not know that a rewrite must keep. */
function codexFile(access: string) {
  return {
    OPENAI_API_KEY: null,
    auth_mode: "chatgpt",
    tokens: {
      id_token: "idt-original",
      access_token: access,
      refresh_token: "rt-original",
      account_id: "acct-1",
    },
    last_refresh: "2026-10-01T00:00:00.000Z",
  };
}

let world: ProviderWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function codexWorld(
  access: string,
  options: Pick<ProviderWorldOptions, "effort" | "setup" | "childOptions"> = {},
) {
  world = await providerWorld({
    providers: ["codex"],
    models: {
      codex: [
        {
          id: "gpt-5-codex",
          name: "GPT-5 Codex",
          efforts: ["low", "medium", "high"],
          default_effort: "medium",
        },
        { id: "codex-mini", name: "Codex Mini" },
      ],
    },
    ...(options.effort ? { effort: options.effort } : {}),
    ...(options.childOptions ? { childOptions: options.childOptions } : {}),
    setup: options.setup ?? ((box) => writeJson(codexAuthPath(box), codexFile(access))),
  });
  await world.child.call("session.create", {});
  return { world, server: world.sse("codex"), tokens: world.tokens() };
}

function assertClean(w: ProviderWorld, secrets: string[]): void {
  const all = [...secrets, "rt-original", "idt-original", "rt-renewed", "idt-renewed"];
  assertNothingLeaked(w.child, forbiddenOf(w.box, w.urls, all), all);
}

/** The token endpoint answers renewals with a fresh access token and a rotated refresh token. */
function renewsTo(w: ProviderWorld, access: string): void {
  w.tokens().route = (_req, res) =>
    json(res, 200, { access_token: access, refresh_token: "rt-renewed", id_token: "idt-renewed" });
}

describe("turns on codex (ChatGPT backend)", () => {
  test("a text turn: the backend path, bearer and account headers, body fields, usage", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server, tokens } = await codexWorld(access);
    server.script(responsesReply({ text: ["Hi ", "there."], usage: { input: 50, output: 9 } }));
    const { result, events } = await runTurn(w.child, "Say hi");
    assert.equal(result.status, "completed");
    assert.deepEqual(result.usage, {
      input_tokens: 50,
      output_tokens: 9,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
    });
    assert.equal(events.find((e) => e.event.type === "message_done")?.event.text, "Hi there.");
    assert.equal(tokens.seen.length, 0, "a valid token is not renewed");
    const seen = server.seen[0];
    assert.equal(seen?.url, "/backend-api/codex/responses");
    assert.equal(seen?.headers["chatgpt-account-id"], "acct-1");
    assert.equal(seen?.headers.originator, "mc-agent");
    assert.equal(seen?.headers.session_id, result.session_id);
    const body = bodies(server)[0] ?? {};
    assert.equal(body.model, "gpt-5-codex");
    assert.equal(body.store, false);
    assert.equal(body.stream, true);
    assert.match(String(body.instructions), /Workspace: /);
    assert.equal(body.prompt_cache_key, result.session_id);
    assertSecretOnlyIn(server.seen, access, "authorization", `Bearer ${access}`);
    assertClean(w, [access]);
  });

  test("an mc auth.json entry without an account id sends the token's account claim", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server } = await codexWorld(access, {
      setup: (box) =>
        writeJson(join(box.home, "auth.json"), {
          codex: { type: "oauth", access_token: access, refresh_token: "rt-original" },
        }),
    });
    server.script(responsesReply({ text: ["Ok."] }));
    const { result } = await runTurn(w.child, "Hello");
    assert.equal(result.status, "completed");
    assert.equal(server.seen[0]?.headers["chatgpt-account-id"], "acct-from-claim");
    assert.equal(server.seen[0]?.headers.authorization, `Bearer ${access}`);
    assertClean(w, [access]);
  });

  test("a tool round trip: function_call_output under the call_id", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server } = await codexWorld(access);
    writeFileSync(join(w.box.workspace, "notes.txt"), "alpha\n");
    server.script(
      responsesReply({
        calls: [{ call_id: "call_codex_1", name: "read_file", arguments: '{"path":"notes.txt"}' }],
      }),
      responsesReply({ text: ["It says alpha."] }),
    );
    const { result, events } = await runTurn(w.child, "Read notes.txt");
    assert.equal(result.status, "completed");
    assert.equal(result.steps, 2);
    assert.ok(typesOf(events).includes("tool_done"));
    const input = bodies(server)[1]?.input as Record<string, unknown>[];
    assert.equal(input.find((i) => i.type === "function_call")?.call_id, "call_codex_1");
    const output = input.find((i) => i.type === "function_call_output");
    assert.equal(output?.call_id, "call_codex_1");
    assert.match(String(output?.output), /alpha/);
    assertClean(w, [access]);
  });

  test("a token expiring within a minute is renewed before the call; written whole, 0600", async () => {
    const old = token("old", 30);
    const renewed = token("new", HOUR_S);
    const { world: w, server, tokens } = await codexWorld(old);
    renewsTo(w, renewed);
    server.script(responsesReply({ text: ["Fresh."] }));
    const before = Date.now();
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(tokens.seen.length, 1);
    assert.equal(tokens.seen[0]?.url, "/oauth/token");
    const asked = JSON.parse(tokens.seen[0]?.body ?? "{}");
    assert.equal(asked.grant_type, "refresh_token");
    assert.equal(asked.refresh_token, "rt-original");
    assert.equal(server.seen.length, 1, "the old token was never sent");
    assert.equal(server.seen[0]?.headers.authorization, `Bearer ${renewed}`);
    const path = codexAuthPath(w.box);
    const file = JSON.parse(readFileSync(path, "utf8"));
    const { last_refresh: lastRefresh, ...rest } = file;
    assert.deepEqual(rest, {
      OPENAI_API_KEY: null,
      auth_mode: "chatgpt",
      tokens: {
        id_token: "idt-renewed",
        access_token: renewed,
        refresh_token: "rt-renewed",
        account_id: "acct-1",
      },
    });
    assert.ok(Date.parse(lastRefresh) >= before - 1000, "last_refresh is the renewal's time");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assertClean(w, [old, renewed]);
  });

  test("renewed tokens that cannot be saved: the turn goes on, stderr says so, no secret", async (t) => {
    const old = token("old", 30);
    const renewed = token("new", HOUR_S);
    let skip: string | null = null;
    const { world: w, server } = await codexWorld(old, {
      childOptions: (box) => {
        const run = unprivilegedChild(box);
        if ("skip" in run) {
          skip = run.skip;
          return {};
        }
        // The folder of Codex's file is read-only for the child: the rewrite must fail.
        chmodSync(join(box.home, "no-codex"), 0o500);
        return run.options;
      },
    });
    if (skip) return t.skip(skip);
    renewsTo(w, renewed);
    server.script(responsesReply({ text: ["Fresh."] }));
    const before = readFileSync(codexAuthPath(w.box));
    const { result } = await runTurn(w.child, "Go");
    chmodSync(join(w.box.home, "no-codex"), 0o700);
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.seen[0]?.headers.authorization, `Bearer ${renewed}`);
    assert.deepEqual(readFileSync(codexAuthPath(w.box)), before);
    assert.match(w.child.stderr, /renewed credentials could not be saved/);
    assertClean(w, [old, renewed]);
  });

  test("a token with two minutes left is used as it is", async () => {
    const access = token("a1", 120);
    const { world: w, server, tokens } = await codexWorld(access);
    server.script(responsesReply({ text: ["Ok."] }));
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.status, "completed");
    assert.equal(tokens.seen.length, 0);
    assert.equal(server.seen[0]?.headers.authorization, `Bearer ${access}`);
  });

  test("an mc auth.json entry near expiry is renewed into that entry, others kept, 0600", async () => {
    const old = token("old", 30);
    const renewed = token("new", HOUR_S);
    const path = (box: Sandbox) => join(box.home, "auth.json");
    const { world: w, server } = await codexWorld(old, {
      setup: (box) =>
        writeJson(path(box), {
          openai: { type: "api_key", key: "sk-kept" },
          codex: { type: "oauth", access_token: old, refresh_token: "rt-original" },
        }),
    });
    renewsTo(w, renewed);
    server.script(responsesReply({ text: ["Fresh."] }));
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(server.seen[0]?.headers.authorization, `Bearer ${renewed}`);
    const file = JSON.parse(readFileSync(path(w.box), "utf8"));
    assert.deepEqual(file.openai, { type: "api_key", key: "sk-kept" });
    const { expires_at: expiresAt, ...entry } = file.codex;
    assert.deepEqual(entry, { type: "oauth", access_token: renewed, refresh_token: "rt-renewed" });
    // The renewed token's own expiry (its JWT `exp`), in milliseconds.
    assert.ok(Math.abs(expiresAt - (nowS() + HOUR_S) * 1000) < 120_000, `expires_at ${expiresAt}`);
    assert.equal(statSync(path(w.box)).mode & 0o777, 0o600);
    assertClean(w, [old, renewed, "sk-kept"]);
  });

  test("a 401 renews once and the call is retried once with the new token", async () => {
    const first = token("first", HOUR_S);
    const renewed = token("renewed", HOUR_S);
    const { world: w, server, tokens } = await codexWorld(first);
    renewsTo(w, renewed);
    server.script(
      {
        kind: "status",
        status: 401,
        body: { error: { message: BODY_MARKER, code: "token_expired" } },
      },
      responsesReply({ text: ["After renewal."] }),
    );
    const { result, events } = await runTurn(w.child, "Go");
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(tokens.seen.length, 1);
    assert.deepEqual(
      server.seen.map((s) => s.headers.authorization),
      [`Bearer ${first}`, `Bearer ${renewed}`],
    );
    assert.deepEqual(
      events.filter((e) => e.event.type === "retry"),
      [],
      "a renewal is not a retry",
    );
    const file = JSON.parse(readFileSync(codexAuthPath(w.box), "utf8"));
    assert.equal(file.tokens.access_token, renewed);
    assert.equal(file.tokens.refresh_token, "rt-renewed");
    assertClean(w, [first, renewed]);
  });

  test("a second 401 after the renewal fails authentication_rejected (renewed only once)", async () => {
    const first = token("first", HOUR_S);
    const renewed = token("renewed", HOUR_S);
    const { world: w, server, tokens } = await codexWorld(first);
    renewsTo(w, renewed);
    const denied = {
      kind: "status" as const,
      status: 401,
      body: { error: { message: BODY_MARKER } },
    };
    server.script(denied, denied);
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.error?.code, "authentication_rejected");
    assert.equal(tokens.seen.length, 1);
    assert.equal(server.seen.length, 2);
    assertClean(w, [first, renewed]);
  });

  test("a rejected renewal is authentication_rejected; nothing sent, the file untouched", async () => {
    const expired = token("expired", -10);
    const { world: w, server, tokens } = await codexWorld(expired);
    tokens.route = (_req, res) =>
      json(res, 401, { error: { code: "refresh_token_reused", message: BODY_MARKER } });
    const before = readFileSync(codexAuthPath(w.box));
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "authentication_rejected");
    assert.equal(tokens.seen.length, 1);
    assert.equal(server.seen.length, 0, "no model call with a token that could not be renewed");
    assert.deepEqual(readFileSync(codexAuthPath(w.box)), before);
    assertClean(w, [expired]);
  });

  test("a 403 is authentication_rejected without a renewal", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server, tokens } = await codexWorld(access);
    server.script({ kind: "status", status: 403, body: { error: { message: BODY_MARKER } } });
    const { result } = await runTurn(w.child, "Go");
    assert.equal(result.error?.code, "authentication_rejected");
    assert.equal(tokens.seen.length, 0);
    assert.equal(server.seen.length, 1);
    assertClean(w, [access]);
  });

  test("effort: reasoning.effort carries the selection; a model without efforts sends none", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server } = await codexWorld(access, { effort: "low" });
    server.script(responsesReply({ text: ["One."] }), responsesReply({ text: ["Two."] }));
    await runTurn(w.child, "First");
    assert.deepEqual(bodies(server)[0]?.reasoning, { effort: "low", summary: "auto" });
    await selectModel(w.child, "codex/codex-mini", null);
    await runTurn(w.child, "Second");
    assert.equal(bodies(server)[1]?.model, "codex-mini");
    assert.equal(bodies(server)[1]?.reasoning, undefined);
  });

  test("interrupt while streaming ends the turn interrupted", async () => {
    const access = token("a1", HOUR_S);
    const { world: w, server } = await codexWorld(access);
    server.script(
      responsesReply({ text: Array.from({ length: 1000 }, (_, i) => `w${i} `), gapMs: 20 }),
    );
    const turn = startTurn(w.child, "Talk");
    await turn.event("message_delta");
    await w.child.call("turn.interrupt", { request_id: turn.id });
    const frame = await turn.response;
    assert.equal((frame.result as { status?: string }).status, "interrupted");
    assertClean(w, [access]);
  });
});

/**
 * A Codex login (src/credentials/codex-login.ts) against a real token endpoint on 127.0.0.1:
 * concurrent renewals share one token request (the refresh token rotates: a second request with
 * the same one would be `refresh_token_reused`), the rotated token is kept for the next one, and
 * a refused renewal fails every waiting caller with the one request's reason.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { CodexLogin } from "../../src/credentials/codex-login.js";
import type { CodexCredential } from "../../src/credentials/discovery.js";
import { RefreshFailure } from "../../src/http/refresh-failure.js";
import { credentialPaths } from "../../src/store/credentials.js";
import { type FakeServer, json, startServer } from "../models/fake-server.js";

describe("a Codex login: one renewal at a time, the rotated token kept", () => {
  let auth: FakeServer;
  /** Answers held until the test releases them, so that renewals overlap for sure. */
  let held: ServerResponse[];
  let arrived: (() => void) | null;
  let dir: string;

  before(async () => {
    auth = await startServer((_req, res) => {
      held.push(res);
      arrived?.();
    });
  });
  after(() => auth.close());
  beforeEach(() => {
    auth.seen.length = 0;
    held = [];
    arrived = null;
    dir = mkdtempSync(join(tmpdir(), "mc-codex-login-"));
    mkdirSync(join(dir, "codex"));
    writeFileSync(
      join(dir, "codex", "auth.json"),
      JSON.stringify({ tokens: { access_token: "at-1", refresh_token: "rt-1" }, keep: 1 }),
      { mode: 0o600 },
    );
  });

  function login(): CodexLogin {
    const credential: CodexCredential = {
      kind: "codex",
      source: "codex",
      access_token: "at-1",
      refresh_token: "rt-1",
      account_id: null,
      expires_at_ms: null,
      last_refresh_ms: null,
    };
    const provider = {
      id: "codex",
      type: "codex" as const,
      api_key_env: null,
      token_url: `${auth.url}/oauth/token`,
    };
    const paths = credentialPaths(dir, { CODEX_HOME: join(dir, "codex"), HOME: dir });
    return new CodexLogin(credential, provider, paths, () => {}, {
      wallMs: 30_000,
      connectMs: 10_000,
    });
  }

  /** Waits until the endpoint holds `count` requests (or more). */
  async function requests(count: number): Promise<void> {
    while (held.length < count) await new Promise<void>((resolve) => (arrived = resolve));
  }

  const refreshTokenSent = (n: number) =>
    (JSON.parse(auth.seen[n]?.body ?? "{}") as { refresh_token?: string }).refresh_token;

  test("three concurrent renewals make one request; the next one sends the rotated token", async () => {
    const codex = login();
    const renewals = [codex.renew(), codex.renew(), codex.renew()];
    await requests(1);
    json(held[0] as ServerResponse, 200, { access_token: "at-2", refresh_token: "rt-2" });
    const renewed = await Promise.all(renewals);
    assert.equal(auth.seen.length, 1);
    assert.equal(refreshTokenSent(0), "rt-1");
    for (const credential of renewed) assert.equal(credential.access_token, "at-2");
    assert.equal(codex.current.refresh_token, "rt-2");
    const file = JSON.parse(readFileSync(join(dir, "codex", "auth.json"), "utf8"));
    assert.equal(file.tokens.refresh_token, "rt-2");
    assert.equal(file.keep, 1);

    const next = codex.renew();
    await requests(2);
    json(held[1] as ServerResponse, 200, { access_token: "at-3", refresh_token: "rt-3" });
    assert.equal((await next).access_token, "at-3");
    assert.equal(auth.seen.length, 2);
    assert.equal(refreshTokenSent(1), "rt-2");
  });

  test("a refused renewal fails every caller that waited on it, after one request", async () => {
    const codex = login();
    const renewals = [codex.renew(), codex.renew()].map((renewal) =>
      renewal.then(
        () => "renewed",
        (error: unknown) => (error instanceof RefreshFailure ? error.reason : "other"),
      ),
    );
    await requests(1);
    json(held[0] as ServerResponse, 400, { error: "refresh_token_reused" });
    assert.deepEqual(await Promise.all(renewals), [
      "authentication_rejected",
      "authentication_rejected",
    ]);
    assert.equal(auth.seen.length, 1);
    assert.equal(codex.current.refresh_token, "rt-1");
  });
});

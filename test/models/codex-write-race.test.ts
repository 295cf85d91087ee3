/**
 * Codex renewal through the real child while the Codex CLI writes the same auth.json: a test
 * build pauses the child between its read and its write (MC_AGENT_TEST_CREDENTIAL_PAUSE), a
 * real second process rewrites the file in place right then, as the Codex CLI does, and after
 * the renewal the file holds both mc's renewed tokens and everything the other process wrote.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { promisify } from "node:util";
import { type Sandbox, sandbox, startReady, type TestChild } from "../helpers/child.js";
import { closedPort, type FakeServer, json, startServer } from "./fake-server.js";
import { MODEL_CAPS, writeConfig, writeJson } from "./fixtures.js";

const run = promisify(execFile);
let box: Sandbox | undefined;
let child: TestChild | undefined;
const servers: FakeServer[] = [];
afterEach(async () => {
  await child?.close();
  for (const s of servers.splice(0)) await s.close();
  box?.cleanup();
});

const jwt = (expSeconds: number, marker: string) => {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ exp: expSeconds, marker })}.sig`;
};

/** The Codex CLI's way of writing: read, change, truncate and rewrite in place (no lock). */
const CODEX_CLI_WRITE = `
  const fs = require("node:fs");
  const path = process.argv[1];
  const file = JSON.parse(fs.readFileSync(path, "utf8"));
  file.OPENAI_API_KEY = "sk-written-by-codex-cli";
  file.tokens.account_id = "acct-from-codex-cli";
  fs.writeFileSync(path, JSON.stringify(file, null, 2), { mode: 0o600 });
`;

test("a Codex CLI write between the renewal's read and rename is kept", async () => {
  box = sandbox();
  const renewed = jwt(Math.floor(Date.now() / 1000) + 3600, "new-access");
  const auth = await startServer((_req, res) =>
    json(res, 200, { access_token: renewed, refresh_token: "rt-2", id_token: "idt-2" }),
  );
  const models = await startServer((_req, res) => json(res, 200, { models: [] }));
  servers.push(auth, models);
  writeConfig(box, {
    providers: {
      codex: { base_url: `${models.url}/backend-api/codex`, token_url: `${auth.url}/oauth/token` },
    },
    models_dev_url: `${await closedPort()}/api.json`,
  });
  const codexAuth = join(box.home, "no-codex", "auth.json");
  writeJson(codexAuth, {
    OPENAI_API_KEY: null,
    tokens: { access_token: jwt(1_000_000, "old"), refresh_token: "rt-1", account_id: "acct-1" },
    last_refresh: "2026-01-01T00:00:00Z",
  });
  const pause = join(box.home, "pause");
  mkdirSync(pause);
  child = await startReady(box, MODEL_CAPS, {
    testMethods: true,
    env: { MC_AGENT_TEST_CREDENTIAL_PAUSE: pause },
  });
  const refreshing = child.call("model.refresh", { provider: "codex" });
  while (!existsSync(join(pause, "paused"))) await new Promise((r) => setTimeout(r, 20));
  await run(process.execPath, ["-e", CODEX_CLI_WRITE, codexAuth]);
  writeFileSync(join(pause, "go"), "");
  await refreshing;
  const file = JSON.parse(readFileSync(codexAuth, "utf8"));
  assert.equal(file.OPENAI_API_KEY, "sk-written-by-codex-cli", "the other write was lost");
  assert.equal(file.tokens.account_id, "acct-from-codex-cli", "the other write was lost");
  assert.equal(file.tokens.access_token, renewed);
  assert.equal(file.tokens.refresh_token, "rt-2");
  assert.equal(file.tokens.id_token, "idt-2");
});

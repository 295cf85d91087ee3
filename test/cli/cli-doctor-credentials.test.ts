import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";

const SECRET = "doctor-credential-canary-0123456789";

/**
 * `mc-agent doctor`'s "credentials:" line for each place a built-in provider's credential can
 * come from (docs/cli.md, "doctor"): the place by name, never the secret.
 */
describe("CLI: doctor names where each credential comes from", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-doctor-cred-");
    env = {
      PATH: process.env.PATH,
      HOME: box.home,
      MC_HOME: box.home,
      CODEX_HOME: join(box.root, "codex"),
      CLAUDE_CONFIG_DIR: join(box.root, "claude"),
    };
  });
  afterEach(() => box.cleanup());
  const credentialLine = (stdout: string, provider: string) =>
    new RegExp(`\\n {2}${provider} \\(${provider}\\) .*\\n {4}credentials: (.*)\\n`).exec(
      stdout,
    )?.[1];

  it("nothing anywhere: none found, with where it was looked for", async () => {
    const r = await runCli(["doctor"], { cwd: box.workspace, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      credentialLine(r.stdout, "anthropic"),
      "none found ($ANTHROPIC_API_KEY is unset, no MC_HOME/auth.json entry)",
    );
    assert.equal(
      credentialLine(r.stdout, "codex"),
      "none found (MC_HOME/auth.json or Codex's auth.json)",
    );
  });

  it("MC_HOME/auth.json: an API key, Codex's OAuth tokens, an OAuth token", async () => {
    writeFileSync(
      join(box.home, "auth.json"),
      JSON.stringify({
        openai: { type: "api_key", key: SECRET },
        codex: { type: "oauth", access_token: SECRET, refresh_token: SECRET },
        anthropic: { type: "oauth", access_token: SECRET },
      }),
      { mode: 0o600 },
    );
    const r = await runCli(["doctor"], { cwd: box.workspace, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(credentialLine(r.stdout, "openai"), "API key from MC_HOME/auth.json");
    assert.equal(credentialLine(r.stdout, "codex"), "OAuth tokens from MC_HOME/auth.json");
    assert.equal(credentialLine(r.stdout, "anthropic"), "OAuth token from MC_HOME/auth.json");
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
  });

  it("Codex's auth.json and Claude's credentials, each named with its path", async () => {
    const codexAuth = join(box.root, "codex", "auth.json");
    const claudeCredentials = join(box.root, "claude", ".credentials.json");
    mkdirSync(join(box.root, "codex"));
    mkdirSync(join(box.root, "claude"));
    writeFileSync(codexAuth, JSON.stringify({ tokens: { access_token: SECRET } }), {
      mode: 0o600,
    });
    writeFileSync(claudeCredentials, JSON.stringify({ claudeAiOauth: { accessToken: SECRET } }), {
      mode: 0o600,
    });
    const r = await runCli(["doctor"], { cwd: box.workspace, env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      credentialLine(r.stdout, "codex"),
      `OAuth tokens from Codex's auth.json (${codexAuth})`,
    );
    assert.equal(
      credentialLine(r.stdout, "anthropic"),
      `OAuth token from Claude's credentials (${claudeCredentials})`,
    );
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
  });
});

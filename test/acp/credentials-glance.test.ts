import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { lookForCredentials } from "../../src/acp/auth.js";
import { glanceCredentials } from "../../src/acp/credentials-glance.js";
import { defaultProviders } from "../../src/acp/default-providers.js";
import { sandbox } from "../../src/conformance/harness.js";

/**
 * The credential glance (src/acp/credentials-glance.ts), which lets the ACP starter answer
 * `initialize` without zod, never says other than the full look (the settings read, each
 * provider's credential discovered): over every mix of settings files, key variables and
 * credential files below, on real folders, it says the same or leaves it to the full look. And
 * it settles the starts an editor makes most: nothing set up, and a key in the environment with
 * or without a config.json that points its provider elsewhere.
 */
const SETTINGS = {
  none: () => {},
  keyless: (home: string) =>
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ providers: { local: { base_url: "http://127.0.0.1:9/v1" } } }),
    ),
  renamedKey: (home: string) =>
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ providers: { openai: { api_key_env: "MY_OPENAI_KEY" } } }),
    ),
  invalid: (home: string) => writeFileSync(join(home, "config.json"), "{ not json"),
  baseUrlOnly: (home: string) =>
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        providers: { openai: { base_url: "http://127.0.0.1:9/v1" } },
        model: "openai/m",
      }),
    ),
  invalidRename: (home: string) =>
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ providers: { openai: { api_key_env: "MY_OPENAI_KEY", bogus: 1 } } }),
    ),
  protoKey: (home: string) =>
    writeFileSync(join(home, "config.json"), '{"providers": {"__proto__": {"api_key_env": "X"}}}'),
  project: (_home: string, workspace: string) => {
    mkdirSync(join(workspace, ".mc"), { recursive: true });
    writeFileSync(join(workspace, ".mc", "config.json"), "{}");
  },
};
const ENVS: Record<string, Record<string, string>> = {
  none: {},
  openai: { OPENAI_API_KEY: "sk-glance" },
  anthropic: { ANTHROPIC_API_KEY: "sk-ant-glance" },
  empty: { OPENAI_API_KEY: "" },
  renamed: { MY_OPENAI_KEY: "sk-renamed" },
  both: { OPENAI_API_KEY: "sk-glance", MY_OPENAI_KEY: "sk-renamed" },
};
const FILES = {
  none: () => {},
  mcAuth: (home: string) =>
    writeFileSync(
      join(home, "auth.json"),
      JSON.stringify({ openai: { type: "api_key", key: "sk-f" } }),
      {
        mode: 0o600,
      },
    ),
  mcAuthEmpty: (home: string) => writeFileSync(join(home, "auth.json"), "{}", { mode: 0o600 }),
  codex: (_home: string, root: string) => {
    mkdirSync(join(root, "codex"), { recursive: true });
    writeFileSync(
      join(root, "codex", "auth.json"),
      JSON.stringify({ tokens: { access_token: "t" } }),
    );
  },
  claude: (_home: string, root: string) => {
    mkdirSync(join(root, "claude"), { recursive: true });
    writeFileSync(
      join(root, "claude", ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "t", expiresAt: 1 } }),
    );
  },
  codexNotADir: (_home: string, root: string) => writeFileSync(join(root, "codex"), "a file"),
};

describe("acp credential glance", () => {
  it("says what the full look says, or leaves it to it", async () => {
    let settled = 0;
    for (const [settingsName, settings] of Object.entries(SETTINGS))
      for (const [envName, vars] of Object.entries(ENVS))
        for (const [fileName, file] of Object.entries(FILES)) {
          const box = sandbox("mc-acp-glance-");
          try {
            settings(box.home, box.workspace);
            file(box.home, box.root);
            const env = {
              HOME: box.root,
              CODEX_HOME: join(box.root, "codex"),
              CLAUDE_CONFIG_DIR: join(box.root, "claude"),
              ...vars,
            };
            const where = { cwd: box.workspace, home: box.home, env };
            const glanced = glanceCredentials(where, defaultProviders());
            const looked = await lookForCredentials(where);
            const name = `${settingsName} / ${envName} / ${fileName}`;
            if (glanced !== undefined) {
              settled += 1;
              assert.equal(glanced, looked, name);
            }
            if (settingsName === "none" && fileName === "none")
              assert.equal(glanced, ["openai", "anthropic", "both"].includes(envName), name);
            if (settingsName === "baseUrlOnly" && envName === "openai")
              assert.equal(glanced, true, name);
          } finally {
            box.cleanup();
          }
        }
    assert.ok(settled >= 5, `settled ${settled}`);
  });

  it("the built-in providers it reads are the engine's, with nothing configured", () => {
    assert.deepEqual(defaultProviders(), [
      { id: "openai", type: "openai", api_key_env: "OPENAI_API_KEY" },
      { id: "anthropic", type: "anthropic", api_key_env: "ANTHROPIC_API_KEY" },
      { id: "codex", type: "codex", api_key_env: null },
    ]);
  });
});

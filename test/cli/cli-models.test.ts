import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { loopbackProvider } from "../helpers/real-home.js";

/**
 * `models` shows every cached ID, enabled or not; `models enable` edits MC_HOME/config.json in
 * place (formatting kept), atomically, and the next command sees the model. Real child, real
 * refresh from a loopback provider.
 */
describe("CLI: models and models enable", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  let close: () => Promise<void>;
  let url: string;
  beforeEach(async () => {
    box = sandbox("mc-cli-models-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home };
    const p = await loopbackProvider({ models: ["alpha", "beta:7b", "gamma"] });
    close = p.close;
    url = p.url;
  });
  afterEach(async () => {
    await close();
    box.cleanup();
  });
  const run = (...args: string[]) => runCli(args, { cwd: box.workspace, env });
  const file = () => join(box.home, "config.json");
  // Four-space indents, an unusual key order, a nested object on one line: all kept.
  const original = () =>
    [
      "{",
      `    "models_dev_url": "${url}/models-dev/api.json",`,
      `    "providers": { "lp": { "type": "openai-compatible", "base_url": "${url}/v1" } },`,
      '    "effort": "low"',
      "}",
      "",
    ].join("\n");

  it("after a refresh, models lists every cached ID as not enabled, and --json too", async () => {
    writeFileSync(file(), original());
    const fresh = await run("models");
    assert.equal(fresh.code, 0, fresh.stderr);
    // A fresh home: refresh first, then enable.
    assert.match(
      fresh.stdout,
      /Next step: run "mc-agent setup" \(it finds your keys, logins and local servers, fetches the models and lets you pick one\); or by hand, first fetch a provider's models with "mc-agent refresh <provider>" .+, then enable one with "mc-agent models enable <provider>\/<model>"/,
    );
    assert.equal((await run("refresh", "lp")).code, 0);
    const r = await run("models");
    assert.match(
      r.stdout,
      /\nCached models\n {2}lp {2}3 cached, 0 enabled\n {4}\[ \] lp\/alpha\n {4}\[ \] lp\/beta:7b\n {4}\[ \] lp\/gamma\n/,
    );
    assert.match(
      r.stdout,
      /Next step: run "mc-agent setup" .+; or by hand, enable one of lp's cached models with "mc-agent models enable lp\/<model>"/,
    );
    const json = JSON.parse((await run("models", "--json")).stdout) as {
      cached: { id: string; state: string }[];
      providers: { provider: string; cached_models: number }[];
    };
    assert.deepEqual(
      json.cached.map((m) => [m.id, m.state]),
      [
        ["lp/alpha", "not_enabled"],
        ["lp/beta:7b", "not_enabled"],
        ["lp/gamma", "not_enabled"],
      ],
    );
    assert.equal(json.providers.find((p) => p.provider === "lp")?.cached_models, 3);
  });

  it("models enable keeps the file's other content and formatting, and the model becomes selectable", async () => {
    writeFileSync(file(), original());
    const mode = statSync(file()).mode & 0o777;
    assert.equal((await run("refresh", "lp")).code, 0);
    const r = await run("models", "enable", "lp/beta:7b", "--default");
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Enabled lp\/beta:7b and made it your default model \("model"\) in .+config\.json\.\nEdited in place/,
    );
    const after = readFileSync(file(), "utf8");
    assert.equal(
      after,
      [
        "{",
        `    "models_dev_url": "${url}/models-dev/api.json",`,
        `    "providers": { "lp": { "type": "openai-compatible", "base_url": "${url}/v1" } },`,
        '    "effort": "low",',
        '    "enabled_models": [',
        '        "lp/beta:7b"',
        "    ],",
        '    "model": "lp/beta:7b"',
        "}",
        "",
      ].join("\n"),
    );
    assert.equal(statSync(file()).mode & 0o777, mode, "the file keeps its mode");
    // A second model goes at the end of the list, the rest untouched.
    assert.equal((await run("models", "enable", "lp/alpha")).code, 0);
    assert.match(
      readFileSync(file(), "utf8"),
      /"enabled_models": \[\n {8}"lp\/beta:7b",\n {8}"lp\/alpha"\n {4}\],\n {4}"model": "lp\/beta:7b"\n\}\n$/,
    );
    const models = await run("models");
    assert.equal(models.code, 0, models.stderr);
    assert.match(models.stdout, /\[x\] lp\/alpha\n {4}\[x\] lp\/beta:7b\n {4}\[ \] lp\/gamma\n/);
    assert.match(models.stdout, /Your model: lp\/beta:7b \(effort low\), as your settings say\./);
    const again = await run("models", "enable", "lp/alpha");
    assert.equal(again.code, 0);
    assert.match(again.stdout, /^lp\/alpha is already enabled; .+ is unchanged\.\n$/);
  });

  it("refuses what is not cached, a provider without a cache, and an invalid file, changing nothing", async () => {
    writeFileSync(file(), original());
    const noCache = await run("models", "enable", "lp/alpha");
    assert.equal(noCache.code, 1);
    assert.match(
      noCache.stderr,
      /lp has no valid cached catalog \(missing_cache\).+\(catalog_missing\)\. Run "mc-agent refresh lp" first/,
    );
    assert.equal((await run("refresh", "lp")).code, 0);
    const unknown = await run("models", "enable", "lp/delta");
    assert.equal(unknown.code, 1);
    assert.match(
      unknown.stderr,
      /lp\/delta is not in lp's cached catalog \(3 models\) \(model_unavailable\)/,
    );
    const nobody = await run("models", "enable", "nobody/x");
    assert.match(nobody.stderr, /no provider named "nobody" is configured/);
    const usage = await run("models", "enable", "no-slash");
    assert.equal(usage.code, 2);
    assert.equal(readFileSync(file(), "utf8"), original());
    writeFileSync(file(), `${original().trimEnd().slice(0, -1)},}\n`);
    const broken = await run("models", "enable", "lp/alpha", "--ignore-config-errors");
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /MC_HOME\/config\.json is invalid, so it is not edited/);
  });

  it("an enabled model the provider's valid cache lacks is named as such", async () => {
    writeFileSync(
      file(),
      JSON.stringify({
        providers: { lp: { type: "openai-compatible", base_url: `${url}/v1` } },
        enabled_models: ["lp/alpha", "lp/retired"],
        models_dev_url: `${url}/models-dev/api.json`,
      }),
    );
    assert.equal((await run("refresh", "lp")).code, 0);
    const r = await run("models");
    assert.match(
      r.stdout,
      /\[x\] lp\/alpha\n {4}\[ \] lp\/beta:7b\n {4}\[ \] lp\/gamma\n {4}\[!\] lp\/retired +enabled, but not in this provider's cached catalog \(not selectable\)\n/,
    );
    const json = JSON.parse((await run("models", "--json")).stdout) as {
      cached: { id: string; state: string }[];
    };
    assert.deepEqual(json.cached.at(-1), {
      id: "lp/retired",
      provider: "lp",
      model: "retired",
      name: null,
      context_window: null,
      state: "enabled_missing",
    });
  });
});

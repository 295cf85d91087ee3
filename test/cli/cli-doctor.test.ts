import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Sandbox, sandbox } from "../helpers/child.js";
import { runCli } from "../helpers/cli.js";
import { cacheDoc, writeCache } from "../models/fixtures.js";

const CANARY = "sk-doctor-canary-0123456789";

/** `mc-agent doctor` on every state a settings file can be in, as a process. */
describe("CLI: doctor", () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-doctor-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home };
  });
  afterEach(() => box.cleanup());
  const run = () => runCli(["doctor"], { cwd: box.workspace, env });
  const globalFile = () => join(box.home, "config.json");
  const lastLine = (out: string) => out.trimEnd().split("\n").at(-1) ?? "";

  it("no bwrap on PATH: the sandbox line says so and how to fix it, and nothing else is a problem", async () => {
    // A PATH with node alone (the launcher needs it), so no bwrap is found.
    const bin = join(box.workspace, "..", "only-node");
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, "node"));
    env.PATH = bin;
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\nSandbox {5}.*bubblewrap.*; to fix it: .*apt-get install bubblewrap/);
    // No git either: turns record no checkpoints, shown and never counted as a problem.
    assert.match(r.stdout, /\nCheckpoints unavailable: git is not on PATH/);
    assert.match(lastLine(r.stdout), /^Verdict: nothing is broken/);
  });

  it("checkpoints: git found in a workspace; unavailable in MC_HOME itself (workspace_in_store)", async () => {
    const ok = await run();
    assert.match(ok.stdout, /\nCheckpoints git found: turns record checkpoints/);
    mkdirSync(join(box.home, "sub"), { recursive: true });
    for (const cwd of [box.home, join(box.home, "sub")]) {
      const r = await runCli(["doctor"], { cwd, env });
      assert.match(
        r.stdout,
        /\nCheckpoints unavailable: this folder is mc-agent's store or inside it/,
      );
      assert.match(lastLine(r.stdout), /^Verdict: nothing is broken/);
    }
  });

  it("a fresh home: every file absent, no cache, the sandbox line, a verdict naming the first step", async () => {
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^Node\\.js {5}${process.versions.node.replace(/\./g, "\\.")} ok\n`),
    );
    assert.match(r.stdout, /\nMC_HOME {5}.+ \(from MC_HOME\): a folder\n/);
    assert.match(r.stdout, /\n {2}global {3}.+\/config\.json: absent \(fine: defaults\)\n/);
    assert.match(r.stdout, /\n {2}project {2}.+\/\.mc\/config\.json: absent \(fine: defaults\)\n/);
    assert.match(r.stdout, /\n {2}auth {5}.+\/auth\.json: absent/);
    assert.match(
      r.stdout,
      /\n {2}openai \(openai\) {2}https:\/\/api\.openai\.com\/v1\n {4}credentials: none found \(\$OPENAI_API_KEY is unset, no MC_HOME\/auth\.json entry\)\n {4}cache: none yet/,
    );
    // The real probe: bubblewrap where it starts (CI installs it), else the reason and the fix.
    assert.match(
      r.stdout,
      /\nSandbox {5}(bubblewrap \(the sandboxed level works\)|.+; to fix it: .+)\n/,
    );
    assert.equal(
      lastLine(r.stdout),
      'Verdict: nothing is broken, but no model is usable yet: run "mc-agent setup" (it finds your keys, logins and local servers, fetches the models and lets you pick one); or by hand, run "mc-agent refresh <provider>", then "mc-agent models enable <provider>/<model>".',
    );
  });

  it("valid settings: the provider's base URL, its credential source (never the secret), cache and count", async () => {
    const identity = { type: "openai-compatible", base_url: "http://127.0.0.1:9/v1" };
    writeFileSync(
      globalFile(),
      JSON.stringify({
        providers: {
          work: { ...identity, api_key_env: "WORK_KEY" },
          local: { type: "openai-compatible", base_url: "http://127.0.0.1:8/v1" },
        },
        enabled_models: ["work/m1", "work/gone"],
        model: "work/m1",
      }),
    );
    writeCache(box, "work", cacheDoc("work", identity, [{ id: "m1" }, { id: "m2" }]));
    env.WORK_KEY = CANARY;
    const r = await run();
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes(CANARY) && !r.stderr.includes(CANARY), "the key is never printed");
    assert.match(r.stdout, /\n {2}global {3}.+\/config\.json: valid\n/);
    assert.match(
      r.stdout,
      /\n {2}work \(openai-compatible\) {2}http:\/\/127\.0\.0\.1:9\/v1\n {4}credentials: API key from \$WORK_KEY\n {4}cache: valid, 2 models\n {4}enabled: work\/m1\n {4}work\/gone is enabled but not in this provider's cached catalog\n/,
    );
    assert.match(r.stdout, /\n {4}credentials: none needed \(keyless: no key configured\)\n/);
    assert.equal(lastLine(r.stdout), "Verdict: ready: 1 usable model; your model is work/m1.");
  });

  it("invalid JSON: the spot with its caret, the file ignored, exit 1", async () => {
    writeFileSync(globalFile(), '{\n  "model": "a/b",\n}');
    const r = await run();
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /\n {2}global {3}invalid: .+\/config\.json:2:17 \(global settings\): a trailing comma .+\n {4}1 \| \{\n {4}2 \| {3}"model": "a\/b",\n {4} {2}\| {17}\^\n/,
    );
    assert.equal(lastLine(r.stdout), "Verdict: 1 problem: MC_HOME/config.json is invalid.");
  });

  it("an invalid key in the project file, and MC_HOME's file valid", async () => {
    writeFileSync(globalFile(), "{}");
    mkdirSync(join(box.workspace, ".mc"));
    writeFileSync(join(box.workspace, ".mc", "config.json"), '{"modle": "a/b"}');
    const r = await run();
    assert.equal(r.code, 1);
    assert.match(r.stdout, /\n {2}global {3}.+: valid\n/);
    assert.match(
      r.stdout,
      /\n {2}project {2}invalid: .+\/\.mc\/config\.json:1:2 \(project settings\): an unknown key "modle"\./,
    );
    assert.equal(lastLine(r.stdout), "Verdict: 1 problem: .mc/config.json is invalid.");
  });

  it("an unreadable file (permissions)", async (t) => {
    if (process.getuid?.() === 0) return t.skip("root reads a file of any mode");
    writeFileSync(globalFile(), "{}");
    chmodSync(globalFile(), 0o000);
    const r = await run();
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /config\.json \(global settings\): it cannot be read \(check its permissions\)\./,
    );
  });

  it("a folder where the file should be: not a regular file", async () => {
    mkdirSync(globalFile());
    const r = await run();
    assert.equal(r.code, 1);
    assert.match(r.stdout, /config\.json \(global settings\): not a regular file/);
  });

  it("MC_HOME that is a file is named as such", async () => {
    const file = join(box.root, "home-file");
    writeFileSync(file, "x");
    env.MC_HOME = file;
    const r = await run();
    assert.equal(r.code, 1);
    assert.match(r.stdout, /\nMC_HOME {5}.+home-file \(from MC_HOME\): a file, not a folder/);
    assert.equal(lastLine(r.stdout), "Verdict: 1 problem: MC_HOME is a file, not a folder.");
  });
});

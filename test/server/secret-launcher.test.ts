/**
 * bin/mc-agent.js's sh launcher, run for real by /bin/sh with a stand-in `node` first on PATH
 * that records what it was given: the credentials are gone from the environment and arrive on
 * fd 3, exactly, whatever bytes they hold; the launcher's list is the protocol module's.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import {
  decodeSecrets,
  encodeSecrets,
  PROVIDER_CREDENTIAL_VARIABLES,
} from "../../src/protocol/secret-handoff.js";
import { CHILD_BIN } from "../helpers/child.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the bin as a frontend would; the stand-in node writes its argv, env and fd 3 to `dir`. */
function launch(env: Record<string, string>, config?: unknown) {
  dir = mkdtempSync(join(tmpdir(), "mc-launcher-"));
  const bin = join(dir, "fake-bin");
  mkdirSync(bin);
  const fake = join(bin, "node");
  writeFileSync(
    fake,
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/argv"\nenv > "${dir}/env"\n` +
      `if [ "$MC_AGENT_SECRETS_FD" = 3 ]; then cat <&3 > "${dir}/fd3"; fi\n`,
  );
  chmodSync(fake, 0o755);
  const home = join(dir, "home");
  mkdirSync(home);
  if (config !== undefined)
    writeFileSync(join(home, "config.json"), JSON.stringify(config, null, 2));
  execFileSync(CHILD_BIN, ["stdio"], {
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: home, MC_HOME: home, ...env },
  });
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name), "utf8");
    } catch {
      return null;
    }
  };
  return { argv: read("argv"), env: read("env") ?? "", fd3: read("fd3") };
}

test("the launcher moves the standard and configured keys to fd 3, byte for byte", () => {
  const odd = "a\\b\nc$d`e'f\"g\\n h\\\\";
  const got = launch(
    { OPENAI_API_KEY: odd, ANTHROPIC_API_KEY: "", MY_KEY: "mk", KEEP_ME: "visible" },
    {
      providers: {
        mine: { type: "openai-compatible", base_url: "http://x", api_key_env: "MY_KEY" },
        // Never moved: the launcher needs PATH to find node, and mc_* are its own.
        odd: { type: "openai-compatible", base_url: "http://x", api_key_env: "PATH" },
        own: { type: "openai-compatible", base_url: "http://x", api_key_env: "mc_s" },
      },
    },
  );
  assert.equal(got.argv, `${CHILD_BIN}\nstdio\n`);
  assert.deepEqual(decodeSecrets(got.fd3 ?? ""), {
    OPENAI_API_KEY: odd,
    ANTHROPIC_API_KEY: "",
    MY_KEY: "mk",
  });
  assert.match(got.env, /^MC_AGENT_SECRETS_FD=3$/m);
  assert.match(got.env, /^KEEP_ME=visible$/m);
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_KEY"])
    assert.doesNotMatch(got.env, new RegExp(`^${name}=`, "m"));
});

test("without a key the launcher passes no fd and drops an inherited fd variable", () => {
  const got = launch({ MC_AGENT_SECRETS_FD: "3", KEEP_ME: "visible" }, { model: "x/y" });
  assert.equal(got.fd3, null);
  assert.doesNotMatch(got.env, /MC_AGENT_SECRETS_FD/);
  assert.match(got.env, /^KEEP_ME=visible$/m);
});

test("every standard variable is moved; the launcher's list is the protocol module's", () => {
  const source = readFileSync(CHILD_BIN, "utf8");
  const list = /for mc_n in ([^;]*); do/.exec(source)?.[1] ?? "";
  assert.deepEqual(list.replaceAll("\\\n", " ").split(/\s+/).filter(Boolean), [
    ...PROVIDER_CREDENTIAL_VARIABLES,
  ]);
  const all = Object.fromEntries(PROVIDER_CREDENTIAL_VARIABLES.map((n) => [n, `v-${n}`]));
  const got = launch(all);
  assert.deepEqual(decodeSecrets(got.fd3 ?? ""), all);
});

test("encodeSecrets and decodeSecrets round-trip any value", () => {
  const values = { A: "", B: "\\", C: "\n", D: "\\n", E: "x=y\nZ=w", F: "\\\\\n\n" };
  assert.deepEqual(decodeSecrets(encodeSecrets(values)), values);
});

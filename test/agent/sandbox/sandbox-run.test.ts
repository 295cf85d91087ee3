/**
 * The bwrap arguments run for real: as this user and, when root, as an unprivileged one (the
 * user-namespace path an ordinary user takes); and the strict `sandbox` setting.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bwrapArgs } from "../../../src/agent/sandbox/bwrap.js";
import { type SandboxPolicy, sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import { classifyBwrapError, findOnPath } from "../../../src/agent/sandbox/probe.js";
import { loadSettings } from "../../../src/store/settings.js";
import { cleanTrees, tree } from "./sandbox-tree.js";

afterEach(cleanTrees);

/** Runs `script` in the sandbox of `policy`, as the current user or through `prefix`. */
function inSandbox(bwrap: string, policy: SandboxPolicy, script: string, prefix: string[] = []) {
  const [file, ...args] = [...prefix, bwrap, ...bwrapArgs(policy, ["/bin/sh", "-c", script])];
  return spawnSync(file as string, args, { encoding: "utf8", cwd: policy.workspace });
}

const BWRAP = process.platform === "linux" ? findOnPath("bwrap", process.env) : null;
const SETPRIV = findOnPath("setpriv", process.env);
/** An unprivileged user to run bwrap as: the user-namespace path, as a normal user has it. */
const NOBODY_UID = 65534;

describe("the arguments run", { skip: BWRAP ? false : "no bwrap on PATH here" }, () => {
  const script =
    "echo ok > inside && cat inside; " +
    "echo x > .git/evil 2>&1 || echo git-refused; " +
    "cat ../mc-home/secret 2>&1 || echo home-hidden; " +
    "ls /proc | grep -c '^[0-9]' ";

  const check = (t: ReturnType<typeof tree>, run: ReturnType<typeof spawnSync>) => {
    assert.equal(run.status, 0, String(run.stderr));
    const out = String(run.stdout);
    assert.match(out, /^ok\n/);
    assert.match(out, /git-refused/);
    assert.match(out, /home-hidden/);
    // Its own PID namespace: a handful of processes, not the host's.
    const pids = Number(out.trim().split("\n").at(-1));
    assert.ok(pids < 10, `processes seen: ${pids}`);
    assert.ok(!existsSync(join(t.workspace, ".git", "evil")));
  };

  test("as this user", () => {
    const t = tree();
    writeFileSync(join(t.home, "secret"), "s");
    const policy = sandboxPolicy({
      workspace: t.workspace,
      home: t.home,
      env: { HOME: t.user },
      network: false,
    });
    check(t, inSandbox(BWRAP as string, policy, script));
  });

  test("as an unprivileged user (the user-namespace path)", {
    skip:
      process.getuid?.() !== 0
        ? "not root here: the test above already ran unprivileged"
        : SETPRIV
          ? false
          : "no setpriv to drop to an unprivileged user",
  }, (context) => {
    const t = tree();
    writeFileSync(join(t.home, "secret"), "s");
    for (const path of [t.root, t.workspace, join(t.workspace, ".git"), t.home])
      chmodSync(path, 0o777);
    const policy = sandboxPolicy({
      workspace: t.workspace,
      home: t.home,
      env: { HOME: t.user },
      network: false,
    });
    const prefix = [
      SETPRIV as string,
      `--reuid=${NOBODY_UID}`,
      `--regid=${NOBODY_UID}`,
      "--clear-groups",
    ];
    const run = inSandbox(BWRAP as string, policy, script, prefix);
    if (run.status !== 0 && classifyBwrapError(String(run.stderr)) === "user_namespaces") {
      context.skip(`unprivileged user namespaces are off here: ${String(run.stderr).trim()}`);
      return;
    }
    check(t, run);
  });
});

describe("the sandbox setting", () => {
  test('"sandbox": {"network": true} is the only shape; anything else makes the file invalid', () => {
    const t = tree();
    const write = (config: unknown) =>
      writeFileSync(join(t.home, "config.json"), JSON.stringify(config));
    write({ sandbox: { network: true } });
    assert.equal(loadSettings(t.home, t.workspace).global.sandbox?.network, true);
    for (const bad of [
      { sandbox: { network: "yes" } },
      { sandbox: { network: true, proxy: 1 } },
      { sandbox: true },
    ]) {
      write(bad);
      const loaded = loadSettings(t.home, t.workspace);
      assert.equal(loaded.invalid.global, true, JSON.stringify(bad));
      assert.equal(loaded.global.sandbox, undefined);
    }
  });
});

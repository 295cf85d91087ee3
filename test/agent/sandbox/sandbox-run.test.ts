/**
 * The bwrap arguments run for real: as this user and, when root, as an unprivileged one (the
 * user-namespace path an ordinary user takes); and the strict `sandbox` setting.
 */
import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bwrapArgs } from "../../../src/agent/sandbox/bwrap.js";
import { type SandboxPolicy, sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import { classifyBwrapError } from "../../../src/agent/sandbox/probe.js";
import { findOnPath } from "../../../src/agent/tools/find-on-path.js";
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

/** Why the tests run as NOBODY_UID are skipped here, or false. */
const AS_NOBODY_SKIP =
  process.getuid?.() !== 0
    ? "not root here: the test above already ran unprivileged"
    : SETPRIV
      ? false
      : "no setpriv to drop to an unprivileged user";

/** The sandbox policy of the tree `t`: its workspace and home, no network. */
const policyOf = (t: ReturnType<typeof tree>) =>
  sandboxPolicy({ workspace: t.workspace, home: t.home, env: { HOME: t.user }, network: false });

/**
 * Runs `script` in the sandbox of `t` as NOBODY_UID, the tree opened to that user first; null,
 * the test skipped, where unprivileged user namespaces are off.
 */
function inSandboxAsNobody(
  t: ReturnType<typeof tree>,
  script: string,
  context: { skip: (reason: string) => void },
): SpawnSyncReturns<string> | null {
  for (const path of [t.root, t.workspace, join(t.workspace, ".git"), t.home])
    chmodSync(path, 0o777);
  const prefix = [
    SETPRIV as string,
    `--reuid=${NOBODY_UID}`,
    `--regid=${NOBODY_UID}`,
    "--clear-groups",
  ];
  const run = inSandbox(BWRAP as string, policyOf(t), script, prefix);
  if (run.status !== 0 && classifyBwrapError(String(run.stderr)) === "user_namespaces") {
    context.skip(`unprivileged user namespaces are off here: ${String(run.stderr).trim()}`);
    return null;
  }
  return run;
}

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
    check(t, inSandbox(BWRAP as string, policyOf(t), script));
  });

  test("as an unprivileged user (the user-namespace path)", { skip: AS_NOBODY_SKIP }, (context) => {
    const t = tree();
    writeFileSync(join(t.home, "secret"), "s");
    const run = inSandboxAsNobody(t, script, context);
    if (run) check(t, run);
  });
});

/**
 * A script that only opens each path for writing (O_WRONLY, nothing written: no test changes a
 * host value) and prints the outcome: `OPENED` or the error code.
 */
const OPEN_FOR_WRITING =
  "const fs = require('node:fs');" +
  "for (const p of process.argv.slice(1)) {" +
  "  try { fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY)); console.log(p, 'OPENED'); }" +
  "  catch (e) { console.log(p, e.code); } }";

/** The paths of the host's /proc a command must not write, and what opening them gives. */
const HOST_PROC_FILES = [
  "/proc/sys/vm/overcommit_ratio",
  "/proc/sys/kernel/core_pattern",
  "/proc/sysrq-trigger",
];

describe("the host's /proc, read-only inside", {
  skip: BWRAP ? false : "no bwrap on PATH here",
}, () => {
  const opened = (stdout: string) =>
    new Map(
      stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" ") as [string, string]),
    );

  test("as this user: /proc/sys and /proc/sysrq-trigger cannot be opened for writing; /proc is mounted read-only", () => {
    const t = tree();
    const node = `'${process.execPath}' -e "${OPEN_FOR_WRITING}" ${HOST_PROC_FILES.join(" ")}`;
    const run = inSandbox(BWRAP as string, policyOf(t), node);
    assert.equal(run.status, 0, String(run.stderr));
    const outcome = opened(String(run.stdout));
    // As root the file modes let the open through to the mount, which refuses: EROFS. As
    // another user the mode refuses first.
    const refusal = process.getuid?.() === 0 ? "EROFS" : "EACCES";
    for (const path of HOST_PROC_FILES) {
      // A kernel without SysRq has no trigger file, inside or out.
      const expected = existsSync(path) ? refusal : "ENOENT";
      assert.equal(outcome.get(path), expected, path);
    }
    const mounts = inSandbox(BWRAP as string, policyOf(t), "cat /proc/self/mountinfo");
    const proc = String(mounts.stdout)
      .split("\n")
      .map((line) => line.split(" "))
      .filter((fields) => fields[4] === "/proc")
      .at(-1);
    assert.ok(proc, "a /proc mount inside");
    assert.match(proc[5] ?? "", /^ro,/, "the /proc the command sees is mounted read-only");
  });

  test("as an unprivileged user: still not opened", { skip: AS_NOBODY_SKIP }, (context) => {
    const t = tree();
    const node = `'${process.execPath}' -e "${OPEN_FOR_WRITING}" ${HOST_PROC_FILES.join(" ")}`;
    const run = inSandboxAsNobody(t, node, context);
    if (!run) return;
    assert.equal(run.status, 0, String(run.stderr));
    for (const [path, code] of opened(String(run.stdout)))
      assert.ok(["EROFS", "EACCES", "ENOENT"].includes(code), `${path}: ${code}`);
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

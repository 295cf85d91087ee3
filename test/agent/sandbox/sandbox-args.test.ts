/**
 * The sandbox's hard parts on their own: the policy from real folders, the exact bwrap argument
 * list (mount order included), the Seatbelt profile text, the reading of bwrap's errors and of a
 * blocked command's output. The bwrap arguments also run, as root and as an unprivileged user
 * (the user-namespace path), where this machine can.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bwrapArgs } from "../../../src/agent/sandbox/bwrap.js";
import { DENIAL_NOTE_BYTES, DenialScan } from "../../../src/agent/sandbox/denials.js";
import { type SandboxPolicy, sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import {
  classifyBwrapError,
  findOnPath,
  probeSandbox,
  unavailableMessage,
} from "../../../src/agent/sandbox/probe.js";
import { quote, seatbeltArgs, seatbeltProfile } from "../../../src/agent/sandbox/seatbelt.js";

const BASE = [
  "--new-session",
  "--die-with-parent",
  "--unshare-user",
  "--cap-drop",
  "ALL",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--disable-userns",
];

const POLICY: SandboxPolicy = {
  workspace: "/home/u/project",
  readOnly: ["/home/u/project/.git", "/home/u/project/.mc"],
  hiddenFolders: ["/home/u/.mc", "/home/u/.codex", "/home/u/.claude"],
  hiddenFiles: [],
  socketFolders: ["/run"],
  keptUnderSockets: [],
  network: false,
};

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

/** A real folder tree under /var/tmp (outside the sandbox's private /tmp). */
function tree() {
  const root = realpathSync(mkdtempSync("/var/tmp/mc-sandbox-unit-"));
  roots.push(root);
  const workspace = join(root, "ws");
  const home = join(root, "mc-home");
  const user = join(root, "user");
  mkdirSync(join(workspace, ".git"), { recursive: true });
  mkdirSync(home);
  mkdirSync(join(user, ".codex"), { recursive: true });
  writeFileSync(join(user, ".codex", "auth.json"), "{}");
  return { root, workspace, home, user };
}

describe("bwrap arguments", () => {
  test("the exact list: base flags, no network, the mounts by depth, hidden folders read-only last", () => {
    assert.deepEqual(bwrapArgs(POLICY, ["/bin/bash", "-c", "make test"]), [
      ...BASE,
      "--unshare-net",
      "--tmpfs",
      "/run",
      "--bind",
      "/home/u/project",
      "/home/u/project",
      "--tmpfs",
      "/home/u/.mc",
      "--tmpfs",
      "/home/u/.codex",
      "--tmpfs",
      "/home/u/.claude",
      "--ro-bind",
      "/home/u/project/.git",
      "/home/u/project/.git",
      "--ro-bind",
      "/home/u/project/.mc",
      "/home/u/project/.mc",
      "--remount-ro",
      "/home/u/.mc",
      "--remount-ro",
      "/home/u/.codex",
      "--remount-ro",
      "/home/u/.claude",
      "--chdir",
      "/home/u/project",
      "--",
      "/bin/bash",
      "-c",
      "make test",
    ]);
  });

  test("network on: no network namespace; a hidden folder inside the workspace comes after its bind", () => {
    const args = bwrapArgs(
      {
        workspace: "/w",
        readOnly: ["/w/.mc"],
        hiddenFolders: ["/w/.mc", "/w/deep/home"],
        hiddenFiles: ["/w/auth.json"],
        socketFolders: ["/run", "/var/run"],
        keptUnderSockets: ["/run/systemd/resolve"],
        network: true,
      },
      ["sh", "-c", ":"],
    );
    assert.ok(!args.includes("--unshare-net"));
    // An older bubblewrap (before 0.8) runs without --disable-userns.
    const older = bwrapArgs(POLICY, ["sh"], { disableUserns: false });
    assert.ok(!older.includes("--disable-userns"));
    assert.deepEqual(older.slice(BASE.length - 1, BASE.length + 1), ["--unshare-net", "--tmpfs"]);
    assert.deepEqual(args.slice(BASE.length), [
      "--tmpfs",
      "/run",
      "--bind",
      "/w",
      "/w",
      "--tmpfs",
      "/var/run",
      "--ro-bind",
      "/w/.mc",
      "/w/.mc",
      "--tmpfs",
      "/w/.mc",
      "--ro-bind",
      "/dev/null",
      "/w/auth.json",
      "--ro-bind",
      "/run/systemd/resolve",
      "/run/systemd/resolve",
      "--tmpfs",
      "/w/deep/home",
      "--remount-ro",
      "/w/.mc",
      "--remount-ro",
      "/w/deep/home",
      "--chdir",
      "/w",
      "--",
      "sh",
      "-c",
      ":",
    ]);
  });
});

describe("the policy from real folders", () => {
  test("existing .git is read-only, a missing .mc is not listed; MC_HOME and the Codex folder are hidden", () => {
    const t = tree();
    const policy = sandboxPolicy({
      workspace: t.workspace,
      home: t.home,
      env: { HOME: t.user },
      network: false,
    });
    const { socketFolders, keptUnderSockets, ...paths } = policy;
    assert.deepEqual(paths, {
      workspace: t.workspace,
      readOnly: [join(t.workspace, ".git")],
      hiddenFolders: [t.home, join(t.user, ".codex")],
      hiddenFiles: [],
      network: false,
    });
    if (existsSync("/run")) assert.ok(socketFolders.includes("/run"));
    assert.deepEqual(keptUnderSockets, [], "no resolver kept without the network");
  });

  test("a credential folder that is the workspace hides only its file; a .git symlink is left alone", () => {
    const t = tree();
    rmSync(join(t.workspace, ".git"), { recursive: true });
    symlinkSync(join(t.root, "elsewhere"), join(t.workspace, ".git"));
    writeFileSync(join(t.workspace, "auth.json"), "{}");
    const policy = sandboxPolicy({
      workspace: t.workspace,
      home: t.home,
      env: { HOME: t.user, CODEX_HOME: t.workspace, CLAUDE_CONFIG_DIR: join(t.root, "none") },
      network: true,
    });
    assert.deepEqual(policy.readOnly, []);
    assert.deepEqual(policy.hiddenFolders, [t.home]);
    assert.deepEqual(policy.hiddenFiles, [join(t.workspace, "auth.json")]);
    assert.equal(policy.network, true);
  });
});

describe("the Seatbelt profile (text only: macOS is not on these machines)", () => {
  test("reads all but the hidden paths, writes the workspace but .git and .mc, no network", () => {
    const profile = seatbeltProfile(
      { ...POLICY, hiddenFiles: ["/home/u/project/auth.json"] },
      "/private/tmp/mc-sandbox-1",
    );
    assert.equal(
      profile,
      [
        "(version 1)",
        "(deny default)",
        "; processes: run programs, fork, signal its own",
        "(allow process-exec process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow sysctl-read)",
        "(allow mach-lookup)",
        "(allow ipc-posix-shm ipc-posix-sem)",
        "(allow pseudo-tty)",
        '(allow file-ioctl (literal "/dev/tty"))',
        "; reads: everything but the hidden paths (denied last, below)",
        "(allow file-read*)",
        "; writes: the workspace but its .git and .mc, the private temp folder, a few devices",
        '(allow file-write* (require-all (subpath "/home/u/project") (require-not (subpath "/home/u/project/.git")) (require-not (subpath "/home/u/project/.mc"))))',
        '(allow file-write* (subpath "/private/tmp/mc-sandbox-1"))',
        '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper"))',
        "; network: none, Unix sockets included",
        "; hidden: MC_HOME and the credential files",
        '(deny file-read* file-write* (subpath "/home/u/.mc") (subpath "/home/u/.codex") (subpath "/home/u/.claude") (literal "/home/u/project/auth.json"))',
        "",
      ].join("\n"),
    );
  });

  test("network on, nothing hidden; quoting; the sandbox-exec arguments", () => {
    const profile = seatbeltProfile(
      {
        workspace: '/Users/a "b"\\c',
        readOnly: [],
        hiddenFolders: [],
        hiddenFiles: [],
        socketFolders: [],
        keptUnderSockets: [],
        network: true,
      },
      "/t",
    );
    assert.match(profile, /\n\(allow network\* system-socket\)\n/);
    assert.ok(!profile.includes("(deny file-read*"));
    assert.ok(profile.includes('(require-all (subpath "/Users/a \\"b\\"\\\\c"))'));
    assert.equal(quote('a"b\\'), '"a\\"b\\\\"');
    assert.deepEqual(seatbeltArgs("(version 1)", ["/bin/bash", "-c", "ls"]), [
      "-p",
      "(version 1)",
      "/bin/bash",
      "-c",
      "ls",
    ]);
  });
});

describe("reading failures", () => {
  test("bwrap's error lines, by what went wrong", () => {
    const table: [string, string][] = [
      [
        "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'.",
        "user_namespaces",
      ],
      [
        "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
        "user_namespaces",
      ],
      ["bwrap: setting up uid map: Permission denied", "user_namespaces"],
      ["bwrap: Creating new namespace failed: Operation not permitted", "no_privileges"],
      ["bwrap: Failed to make / slave: Permission denied", "no_privileges"],
      ["bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "no_privileges"],
      ["bwrap: Unknown option --disable-userns", "failed"],
      ["", "failed"],
    ];
    for (const [line, problem] of table) assert.equal(classifyBwrapError(line), problem, line);
  });

  test("no bwrap on PATH: not installed, with the package to install; no path in the message", () => {
    const t = tree();
    const found = probeSandbox(
      sandboxPolicy({ workspace: t.workspace, home: t.home, env: {}, network: false }),
      { PATH: t.root },
      "linux",
    );
    assert.equal(found.sandbox, null);
    assert.equal(found.problem, "not_installed");
    const message = unavailableMessage(found);
    assert.match(message, /^No OS sandbox can start: bubblewrap \(bwrap\) is not installed/);
    assert.match(message, /apt-get install bubblewrap/);
    assert.ok(!message.includes("/"), message);
    assert.equal(
      probeSandbox(
        sandboxPolicy({ workspace: t.workspace, home: t.home, env: {}, network: false }),
        {},
        "win32",
      ).problem,
      "unsupported_platform",
    );
  });

  test("a blocked command's note: writes, network, both, or none; it fits its room", () => {
    const scan = (kind: "bubblewrap" | "seatbelt", network: boolean, ...chunks: string[]) => {
      const denials = new DenialScan(kind, network);
      for (const chunk of chunks) denials.push(chunk);
      return denials.note();
    };
    assert.equal(scan("bubblewrap", false, "all fine\n"), null);
    assert.match(
      scan("bubblewrap", false, "bash: /etc/x: Read-only ", "file system\n") ?? "",
      /^\[sandbox: only the workspace \(not its \.git\/ and \.mc\/\) and a private \/tmp are writable\. If the command must do that, call shell again with "sandbox": false, which asks the user first\]$/,
    );
    assert.match(
      scan("bubblewrap", false, "curl: (6) Could not resolve host: x") ?? "",
      /no network/,
    );
    assert.equal(scan("bubblewrap", true, "connect: Connection refused"), null);
    assert.equal(scan("bubblewrap", false, "touch: Operation not permitted"), null);
    assert.match(scan("seatbelt", false, "touch: Operation not permitted") ?? "", /writable/);
    const both =
      scan("bubblewrap", false, "Read-only file system\n", "Network is unreachable\n") ?? "";
    assert.match(both, /writable; there is no network/);
    assert.ok(Buffer.byteLength(`\n${both}`) <= DENIAL_NOTE_BYTES);
  });
});

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

/**
 * The sandbox's hard parts on their own: the policy from real folders, the exact bwrap argument
 * list (mount order included), the Seatbelt profile text, the reading of bwrap's errors and of a
 * blocked command's output (sandbox-run.test.ts runs the arguments for real).
 */
import assert from "node:assert/strict";
import { existsSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { bwrapArgs } from "../../../src/agent/sandbox/bwrap.js";
import { DENIAL_NOTE_BYTES, DenialScan } from "../../../src/agent/sandbox/denials.js";
import { type SandboxPolicy, sandboxPolicy } from "../../../src/agent/sandbox/policy.js";
import {
  classifyBwrapError,
  probeSandbox,
  unavailableMessage,
} from "../../../src/agent/sandbox/probe.js";
import { quote, seatbeltArgs, seatbeltProfile } from "../../../src/agent/sandbox/seatbelt.js";
import { cleanTrees, tree } from "./sandbox-tree.js";

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
  "--remount-ro",
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
  tooWide: false,
};

afterEach(cleanTrees);

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
        tooWide: false,
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
      keptUnderHidden: [],
      network: false,
      tooWide: false,
    });
    if (existsSync("/run")) assert.ok(socketFolders.includes("/run"));
    assert.deepEqual(keptUnderSockets, [], "no resolver kept without the network");
  });

  test("a credential folder that is the workspace hides only its file (and is too wide); a .git symlink is left alone", () => {
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
    // No sandbox is offered for it: the folder's own config would be writable.
    assert.equal(policy.tooWide, true);
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
        tooWide: false,
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

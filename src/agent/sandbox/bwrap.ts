/**
 * The bubblewrap command line for a policy (docs/tools.md, "The sandbox"). Every flag is there
 * for a reason said beside it; the order of the mounts matters (bwrap applies them in order, a
 * later mount on a deeper path wins), so they are sorted by depth, and the hidden folders are
 * made read-only last, after any mount point below them was created.
 */
import { sep } from "node:path";
import type { SandboxPolicy } from "./policy.js";

/** The flags that do not depend on the paths: namespaces, capabilities, the base mounts. */
const BASE_FLAGS = [
  // A fresh session: no controlling terminal to push keystrokes into (TIOCSTI).
  "--new-session",
  // The sandbox dies with the bwrap process our shell tool kills (and with the child).
  "--die-with-parent",
  // Always a user namespace, even as root: a root process keeping its capabilities could
  // remount `/` read-write. No capability inside (and, below, no nested user namespace).
  "--unshare-user",
  "--cap-drop",
  "ALL",
  // Its own PID namespace: when the command's shell exits, or bwrap is killed, the kernel
  // kills every process left inside, including ones that called setsid.
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  // The whole filesystem read-only, a minimal /dev, a /proc of the new PID namespace, and a
  // private, empty /tmp.
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  // All of that /proc read-only: its non-process files are the host's own. A root command
  // keeps root's file permissions on them in its user namespace, and bwrap itself covers
  // /proc/sys only when it looks writable, which its 0555 mode hides: without this, root
  // inside writes host sysctls (/proc/sys), triggers SysRq, and can chmod any /proc entry for
  // every host user. Per process files go read-only too (a debugger falls back to ptrace).
  "--remount-ro",
  "/proc",
  "--tmpfs",
  "/tmp",
] as const;

interface Mount {
  path: string;
  flags: string[];
}

export interface BwrapOptions {
  /**
   * `--disable-userns` (bubblewrap 0.8 and later): the command cannot make a user namespace of
   * its own. Only a second wall: a nested namespace could not undo the mounts above, which the
   * kernel locks; an older bwrap runs without it (probe.ts finds out).
   */
  disableUserns: boolean;
}

/** `bwrap` arguments that run `argv` (the shell and its `-c` command) under `policy`. */
export function bwrapArgs(
  policy: SandboxPolicy,
  argv: readonly string[],
  options: BwrapOptions = { disableUserns: true },
): string[] {
  const mounts: Mount[] = [
    // A read-only mount does not stop a connect to a Unix socket on it: the folders that hold
    // the host's daemons' sockets are emptied instead.
    ...policy.socketFolders.map((path) => ({ path, flags: ["--tmpfs", path] })),
    ...policy.keptUnderSockets.map((path) => ({ path, flags: ["--ro-bind", path, path] })),
    { path: policy.workspace, flags: ["--bind", policy.workspace, policy.workspace] },
    ...policy.readOnly.map((path) => ({ path, flags: ["--ro-bind", path, path] })),
    ...policy.hiddenFolders.map((path) => ({ path, flags: ["--tmpfs", path] })),
    ...policy.hiddenFiles.map((path) => ({ path, flags: ["--ro-bind", "/dev/null", path] })),
    // The user's skills, readable again below their hidden folder (docs/skills.md).
    ...(policy.keptUnderHidden ?? []).map((path) => ({ path, flags: ["--ro-bind", path, path] })),
  ];
  // Stable: on the same path, the later kind (hidden over read-only) wins.
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  return [
    ...BASE_FLAGS,
    ...(options.disableUserns ? ["--disable-userns"] : []),
    // No network namespace of our own unless the user's config turns the network on: inside
    // one there is only a loopback of its own, so nothing outside, not even the host's
    // localhost services, can be reached.
    ...(policy.network ? [] : ["--unshare-net"]),
    ...mounts.flatMap((mount) => mount.flags),
    ...policy.hiddenFolders.flatMap((path) => ["--remount-ro", path]),
    "--chdir",
    policy.workspace,
    "--",
    ...argv,
  ];
}

function depth(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}

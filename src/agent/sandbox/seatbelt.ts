/**
 * macOS: the Seatbelt profile `sandbox-exec -p` runs a command under, built from the same policy
 * as bubblewrap's arguments. UNTESTED here (these machines run Linux): the text is unit-tested,
 * the behaviour is not (docs/tools.md says so).
 *
 * Seatbelt filters system calls by path instead of building a new filesystem view, so the
 * mapping differs from bwrap's: reads are allowed except under the hidden paths; writes only
 * under the workspace (minus `.git` and `.mc`), a private temp folder made for the command, and
 * the few devices a shell writes to; no network unless turned on. There is no PID namespace:
 * the process group kill of shell-process.ts is what ends the command's processes.
 */
import type { SandboxPolicy } from "./policy.js";

/** Where macOS keeps sandbox-exec; looked up at this path only, never on PATH. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Devices a shell and common tools write to. */
const WRITABLE_DEVICES = ["/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"];

/** The profile for `policy`, with `privateTmp` (made per command) as the only other writable folder. */
export function seatbeltProfile(policy: SandboxPolicy, privateTmp: string): string {
  const hidden = [
    ...policy.hiddenFolders.map((path) => `(subpath ${quote(path)})`),
    ...policy.hiddenFiles.map((path) => `(literal ${quote(path)})`),
  ];
  const readOnly = policy.readOnly.map((path) => `(require-not (subpath ${quote(path)}))`);
  const lines = [
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
    `(allow file-write* (require-all (subpath ${quote(policy.workspace)})${readOnly.map((r) => ` ${r}`).join("")}))`,
    `(allow file-write* (subpath ${quote(privateTmp)}))`,
    `(allow file-write* ${WRITABLE_DEVICES.map((path) => `(literal ${quote(path)})`).join(" ")})`,
    ...(policy.network
      ? ["; network: on (the user's config)", "(allow network* system-socket)"]
      : // Not even Unix sockets: one can be a door out (a Docker daemon, a database).
        ["; network: none, Unix sockets included"]),
    // Last: a later rule wins in Seatbelt, so a hidden path inside the workspace stays hidden.
    ...(hidden.length > 0
      ? [
          "; hidden: MC_HOME and the credential files",
          `(deny file-read* file-write* ${hidden.join(" ")})`,
        ]
      : []),
    // Later still: the user's skills are readable again (docs/skills.md).
    ...(policy.keptUnderHidden ?? []).map((path) => `(allow file-read* (subpath ${quote(path)}))`),
  ];
  return `${lines.join("\n")}\n`;
}

/** `sandbox-exec` arguments that run `argv` under the profile. */
export function seatbeltArgs(profile: string, argv: readonly string[]): string[] {
  // No "--": sandbox-exec's own usage shows none, and argv[0] is an absolute path.
  return ["-p", profile, ...argv];
}

/** A Seatbelt string literal: backslashes and double quotes escaped. */
export function quote(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

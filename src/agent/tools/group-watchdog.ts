/**
 * The watchdog that ends a process group when the child dies without a chance to end it (kill
 * -9, an OOM kill; issue 35). Node has no PR_SET_PDEATHSIG, and the group, led by a process in a
 * session or group of our own making, is no one else's to end. So the group's leader starts
 * under `/bin/sh` running this script, with one fd (the watched one) a pipe whose only writer is
 * the child (libuv opens our end close-on-exec, so no other process of ours holds it, and
 * nothing is ever written to it): the script keeps a copy of that pipe as fd 9, starts a
 * background `/bin/sh` in the group that reads it until EOF and then sends SIGKILL to its own
 * group (`kill -KILL 0`), and execs the program with the watched fd and fd 9 closed (a shell's
 * stdin becomes /dev/null), so the program sees exactly what it saw before (its pid is the
 * group's id, `$$` included). The read returns only when the child's end is closed: at our
 * death, or when the owner closes it once the group is over anyway. The watchdog's output is
 * /dev/null: it never holds the program's pipes. A process that leaves the group (setsid) is
 * beyond it, as with any group kill. Used by `shell` (its stdin watched) and by MCP stdio
 * servers (an extra pipe as fd 3: their stdin is their protocol). Sandboxed commands have
 * bwrap's `--die-with-parent` instead.
 */

/** Which fd of the script is the watched pipe: stdin (0) or the first extra stdio entry (3). */
type WatchedFd = 0 | 3;

/**
 * The watchdog is a `/bin/sh` of its own (exec'd, not a fork of the script's shell), so that its
 * command line is its own (`mc-agent-watchdog` in `ps`), never a copy of the program's.
 */
const WATCHDOG =
  '/bin/sh -c "read -r _; kill -KILL 0" mc-agent-watchdog <&9 9<&- >/dev/null 2>&1 &';

/** Shell variables a POSIX shell may add to what it exports (dash PWD; bash PWD, SHLVL). */
export const SHELL_ADDED = ["PWD", "OLDPWD", "SHLVL"] as const;

function script(watched: WatchedFd, unset: readonly string[]): string {
  // stdin watched: the program gets /dev/null in its place; fd 3 watched: it is simply closed.
  const release = watched === 0 ? "</dev/null" : "3<&-";
  const names = unset.filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
  const clean = names.length > 0 ? `unset ${names.join(" ")}; ` : "";
  return `exec 9<&${watched} ${release}; ${WATCHDOG} ${clean}exec 9<&- "$0" "$@"`;
}

/**
 * The launch of `file args...` under the watchdog (`file` as `exec` finds it: a name without a
 * slash is looked up on the PATH of the environment it runs with). Fd `watched` of the spawn must
 * be a pipe we hold, and nothing else. `unset` names variables the script's shell must not pass
 * on (those of SHELL_ADDED the environment did not have), for a program whose environment must
 * be exactly the one given.
 */
export function watchedLaunch(
  watched: WatchedFd,
  file: string,
  args: readonly string[],
  unset: readonly string[] = [],
): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", script(watched, unset), file, ...args] };
}

/** The launch of `shell -c command` under the watchdog; its stdin must be a pipe we hold. */
export function watchedShell(shell: string, command: string): { file: string; args: string[] } {
  return watchedLaunch(0, shell, ["-c", command]);
}

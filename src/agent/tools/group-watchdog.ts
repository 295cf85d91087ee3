/**
 * The watchdog that ends a process group when the child dies without a chance to end it (kill
 * -9, an OOM kill; issue 35). Node has no PR_SET_PDEATHSIG, and the group, led by a process in a
 * session or group of our own making, is no one else's to end. So the group's leader starts
 * under `/bin/sh` running this script, with one fd (the watched one) a pipe whose only writer is
 * the child (libuv opens our end close-on-exec, so no other process of ours holds it, and
 * nothing is ever written to it): the script keeps a copy of that pipe as fd 9, starts a
 * background subshell in the group that reads fd 9 until EOF and then sends SIGKILL to its own
 * group (`kill -KILL 0`), and execs the program with the watched fd and fd 9 closed (a shell's
 * stdin becomes /dev/null), so the program sees exactly what it saw before (its pid is the
 * group's id, `$$` included). The read returns only when the child's end is closed: at our
 * death, or when the owner closes it once the group is over anyway. The subshell's stdio is
 * /dev/null: it never holds the program's pipes. A process that leaves the group (setsid) is
 * beyond it, as with any group kill. Used by `shell` (its stdin watched) and by MCP stdio
 * servers (an extra pipe as fd 3: their stdin is their protocol). Sandboxed commands have
 * bwrap's `--die-with-parent` instead.
 */

/** Which fd of the script is the watched pipe: stdin (0) or the first extra stdio entry (3). */
export type WatchedFd = 0 | 3;

function script(watched: WatchedFd): string {
  // stdin watched: the program gets /dev/null in its place; fd 3 watched: it is simply closed.
  const release = watched === 0 ? "</dev/null" : "3<&-";
  return (
    `exec 9<&${watched} ${release}; ` +
    "(read -r _ <&9; kill -KILL 0) </dev/null >/dev/null 2>&1 & " +
    'exec 9<&- "$0" "$@"'
  );
}

/**
 * The launch of `file args...` under the watchdog (`file` as `exec` finds it: a name without a
 * slash is looked up on the PATH of the environment it runs with). Fd `watched` of the spawn must
 * be a pipe we hold, and nothing else.
 */
export function watchedLaunch(
  watched: WatchedFd,
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", script(watched), file, ...args] };
}

/** The launch of `shell -c command` under the watchdog; its stdin must be a pipe we hold. */
export function watchedShell(shell: string, command: string): { file: string; args: string[] } {
  return watchedLaunch(0, shell, ["-c", command]);
}

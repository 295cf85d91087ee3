/**
 * The watchdog that ends a command's process group when the child dies without a chance to
 * end it (kill -9, an OOM kill; issue 35). Node has no PR_SET_PDEATHSIG, and the group, led by
 * the shell in a session of our own making, is no one else's to end. So the shell starts under
 * `/bin/sh` running this script, with stdin a pipe whose only writer is the child (libuv opens
 * it close-on-exec, so no other process of ours holds it, and nothing is ever written to it):
 * it keeps a copy of that pipe as fd 9, starts a background subshell in the group that reads fd
 * 9 until EOF and then sends SIGKILL to its own group (`kill -KILL 0`), and execs the shell with
 * stdin /dev/null and fd 9 closed, so the command sees exactly what it saw before (its pid is
 * the group's id, `$$` included). The read returns only when the child's end is closed: at our
 * death, or when runShell closes it after the group was killed anyway. The subshell's output
 * goes to /dev/null: it never holds the output pipes. A process that leaves the group (setsid)
 * is beyond it, as with any shell. Sandboxed commands have bwrap's `--die-with-parent` instead.
 */

const SCRIPT =
  'exec 9<&0 </dev/null; (read -r _ <&9; kill -KILL 0) >/dev/null 2>&1 & exec 9<&- "$0" -c "$1"';

/** The launch of `shell -c command` under the watchdog; its stdin must be a pipe we hold. */
export function watchedShell(shell: string, command: string): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", SCRIPT, shell, command] };
}

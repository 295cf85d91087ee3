import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, resolve } from "node:path";

/**
 * Whether a stdio server's command can be started, checked before it is launched under the
 * group watchdog (group-watchdog.ts). The watchdog's `/bin/sh` always spawns, so a command that
 * does not exist would otherwise become a server that exits 127 (`exited`) instead of the
 * spawn's own failure (`spawn_failed`). The lookup is exec's: a command with a slash is taken
 * relative to the server's cwd, a bare name is looked up on the PATH of the server's environment
 * (an empty entry is the cwd), and it must name a regular file we may execute. The error carries
 * an errno code (ENOENT, EACCES), as a failed spawn's does, and never the path.
 */
export async function checkCommand(
  command: string,
  env: Record<string, string>,
  cwd: string,
): Promise<void> {
  if (command === "") throw notStartable("ENOENT");
  if (command.includes("/")) {
    const problem = await problemOf(resolve(cwd, command));
    if (problem) throw notStartable(problem);
    return;
  }
  let found = "ENOENT";
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(delimiter)) {
    const problem = await problemOf(resolve(cwd, dir, command));
    if (problem === null) return;
    // exec goes on past a file it may not run, and reports EACCES if nothing else is found.
    if (problem === "EACCES") found = "EACCES";
  }
  throw notStartable(found);
}

/** What libuv and the shells search when the environment has no PATH. */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

async function problemOf(path: string): Promise<"ENOENT" | "EACCES" | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return "EACCES";
    await access(path, constants.X_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EACCES" ? "EACCES" : "ENOENT";
  }
}

function notStartable(code: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`the command cannot be started (${code})`);
  error.code = code;
  return error;
}

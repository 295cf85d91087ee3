import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** MC_HOME, or ~/.mc. An empty variable counts as unset. */
export function resolveHome(env: NodeJS.ProcessEnv): string {
  const configured = env.MC_HOME;
  return configured ? resolve(configured) : join(homedir(), ".mc");
}

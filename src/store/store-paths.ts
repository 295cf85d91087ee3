/**
 * Every place mc keeps its own state, as absolute paths (docs/checkpoints.md, "What a
 * checkpoint records"): MC_HOME, the verdict cache's root (store/cache-root.ts), the private
 * cache root in the temp folder (boot/compile-cache.ts: `<tmpdir>/mc-agent-<uid>`) and the
 * credential files read from other tools' folders. A workspace may hold any of them (a
 * workspace that is `$HOME` holds `~/.mc` and `~/.cache/mc-agent`): checkpoints never record
 * them and a revert never touches them.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verdictCacheRoot } from "./cache-root.js";
import { credentialPaths } from "./credential-paths.js";

export function storePaths(home: string, env: NodeJS.ProcessEnv): string[] {
  const credentials = credentialPaths(home, env);
  const uid = process.getuid?.();
  return [
    home,
    verdictCacheRoot(env),
    uid === undefined ? null : join(tmpdir(), `mc-agent-${uid}`),
    credentials.codexAuth,
    credentials.claudeCredentials,
  ].filter((path): path is string => path !== null);
}

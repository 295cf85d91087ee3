import { isAbsolute, join, resolve } from "node:path";

/**
 * The per-user cache root, outside MC_HOME (docs/store.md, "The verdict cache"): where the
 * session verdict cache keeps its folders (sessions/verdicts/verdict-root.ts), and one of the
 * places a checkpoint never records (store-paths.ts). Relative paths are ignored, as XDG says.
 */

/** The per-user cache root (MC_AGENT_CACHE_DIR, XDG, ~/.cache), or null: none. */
export function verdictCacheRoot(env: NodeJS.ProcessEnv): string | null {
  const explicit = env.MC_AGENT_CACHE_DIR;
  if (explicit) return isAbsolute(explicit) ? resolve(explicit) : null;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(resolve(xdg), "mc-agent");
  const home = env.HOME;
  if (home && isAbsolute(home)) return join(resolve(home), ".cache", "mc-agent");
  return null;
}

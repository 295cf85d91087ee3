import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * A path compared by where it really is, even when its tail does not exist yet: the verdict
 * cache's root against MC_HOME (sessions/verdicts/verdict-root.ts), MC_HOME against a
 * workspace (agent/checkpoints/keep-out.ts).
 */

/** `path` with its longest existing prefix resolved through symlinks. */
export function realish(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

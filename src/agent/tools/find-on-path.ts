import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * `name` in the first of PATH's folders that has it executable by this user (`fileOnly`: a
 * regular file, not a folder of that name), or null. The shell, bubblewrap and git are looked
 * up this way on the stdio starter's path to its answer (src/server/turn-facts.ts), where most
 * folders lack the program: `stat` says so without the exception `access` throws for a missing
 * file, which costs ten times the call.
 */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  options: { fileOnly?: boolean } = {},
): string | null {
  for (const folder of (env.PATH ?? "").split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, name);
    try {
      const stat = statSync(candidate, { throwIfNoEntry: false });
      if (stat === undefined || (options.fileOnly && !stat.isFile())) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here (not executable, or not a folder on the way): the next PATH entry.
    }
  }
  return null;
}

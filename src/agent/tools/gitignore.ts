/**
 * Which paths search skips: the workspace's `.gitignore` files at every depth and
 * `.git/info/exclude`, matched by the `ignore` package (git's own rules), where a deeper file's
 * rule wins over a shallower one, as in git.
 */
import { join, posix } from "node:path";
import ignore, { type Ignore } from "ignore";
import { openIfRegular } from "./regular-file.js";

/** A `.gitignore` larger than this is not read (it is surely not one written by hand). */
const GITIGNORE_BYTES = 1024 * 1024;

interface Level {
  /** Workspace-relative folder the rules are relative to ("" for the workspace). */
  base: string;
  rules: Ignore;
}

export class IgnoreRules {
  private constructor(private readonly levels: Level[]) {}

  /** The rules in force at the workspace root: `.git/info/exclude` and the root `.gitignore`. */
  static async forWorkspace(workspace: string): Promise<IgnoreRules> {
    const exclude = await readRules(join(workspace, ".git", "info", "exclude"));
    const root = new IgnoreRules(exclude ? [{ base: "", rules: exclude }] : []);
    return root.enter(workspace, "");
  }

  /** The rules inside folder `relative` (workspace-relative): its own `.gitignore` added. */
  async enter(workspace: string, relative: string): Promise<IgnoreRules> {
    const rules = await readRules(join(workspace, relative, ".gitignore"));
    return rules ? new IgnoreRules([...this.levels, { base: relative, rules }]) : this;
  }

  /** Whether a workspace-relative path is ignored; the deepest level with an opinion decides. */
  ignores(relative: string, isDirectory: boolean): boolean {
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const level = this.levels[i] as Level;
      const inner = level.base === "" ? relative : posix.relative(level.base, relative);
      if (inner === "" || inner === ".." || inner.startsWith("../")) continue;
      const verdict = level.rules.test(isDirectory ? `${inner}/` : inner);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}

async function readRules(path: string): Promise<Ignore | null> {
  // A `.gitignore` that is a FIFO or a device is no rules, and is never opened blocking.
  const handle = await openIfRegular(path);
  if (handle === null) return null; // none there (or unreadable): no rules from it
  try {
    const text = await handle.readFile("utf8");
    return text.length > GITIGNORE_BYTES ? null : ignore().add(text);
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => {});
  }
}

import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as CodeCache from "./code-cache.js";

/**
 * The second of `mc-agent acp`'s Node 20 scripts, dist/child/acp-later.cjs: every module of the
 * agent that is reached only through an `import()` (the turn engine, the MCP SDK, ajv, ...),
 * which scripts/acp-later-split.js builds apart from dist/child/acp.cjs, so that an editor's
 * start reads, deserialises and runs none of it before its `session/new` is answered. The first
 * `import()` of such a module (the agent makes one once that answer is written: src/acp/main.ts)
 * loads the whole script through the code cache, its own entry (src/boot/code-cache.ts), and
 * runs only that module's init (and what it imports); later ones find the script loaded.
 *
 * The loader is dist/child/code-cache.cjs, the one src/entry.ts loaded acp.cjs with, required
 * from beside this bundle: the same module, not a second copy of it in acp.cjs.
 */

/** What the later script exports: each of its modules by its key, its init run on first call. */
type LaterScript = Record<string, (() => unknown) | undefined>;

let loaded: LaterScript | null = null;

/** The exports of the later script's module `key` (scripts/acp-later-split.js names it). */
export function laterModule(key: string): unknown {
  loaded ??= loadLaterScript();
  const module = loaded[key];
  if (module === undefined) throw new Error("The agent's build is incomplete; reinstall mc-agent.");
  return module();
}

function loadLaterScript(): LaterScript {
  // In the bundle, import.meta.url is the bundle's own file (scripts/bundle.js defines it).
  const beside = dirname(fileURLToPath(import.meta.url));
  const codeCache: typeof CodeCache = createRequire(import.meta.url)("./code-cache.cjs");
  const file = join(beside, "acp-later.cjs");
  return (
    codeCache.loadCachedChild<LaterScript>(file, process.env, { refresh: false }) ??
    codeCache.loadUncached<LaterScript>(file)
  );
}

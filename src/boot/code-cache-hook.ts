/**
 * Where the child finds the code cache's refresh of its entry (code-cache.ts offers it,
 * code-cache-refresh.ts calls it): a symbol of the global registry, because the two are in
 * different bundles (dist/child/code-cache.cjs and dist/child/stdio.cjs), each with modules of
 * its own. Unset on a Node with its own compile cache, and once the entry holds the start.
 */
export const REFRESH_HOOK = Symbol.for("mc-agent.code-cache.refresh");

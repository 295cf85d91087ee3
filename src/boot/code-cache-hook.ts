/**
 * Where the child finds the code cache's refresh of its entry (code-cache.ts offers it,
 * code-cache-refresh.ts calls it): a symbol of the global registry, because the two are in
 * different bundles (dist/child/code-cache.cjs and dist/child/stdio.cjs), each with modules of
 * its own. Unset on a Node with its own compile cache, and once the entry is final.
 */
export const REFRESH_HOOK = Symbol.for("mc-agent.code-cache.refresh");

/**
 * How far a start had gone when its code went into the entry: V8's data holds the code of what
 * had run by then, so an entry made further on spares the next starts more compiling. An entry
 * is made again by a child that has gone further than the one that made it (code-cache.ts).
 */
export const StartReach = {
  /** Only the bundle's top level: the entry written as it loads. */
  loaded: 0,
  /** Its start served (an initialize, the first requests), no session. */
  served: 1,
  /** A session attached (created, opened, forked): the sessions' code too. */
  session: 2,
  /** Never made again: a started entry V8 rejected, rewritten with the top level's code. */
  final: 3,
} as const;

export type StartReach = (typeof StartReach)[keyof typeof StartReach];

/** The refresh code-cache.ts offers: makes the entry again when `reach` is past the entry's. */
export type RefreshHook = (reach: StartReach) => void;

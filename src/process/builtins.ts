/**
 * Node's modules that only some work uses, loaded at that work's first use instead of with the
 * modules that hold it: each takes 2-5 ms of CPU to load, which a start that does not use it
 * (`mc-agent acp`'s first `session/new` answered, a child's first `initialize`) would pay before
 * its answer (docs/benchmarks.md, "Targets of issue 44"). `process.getBuiltinModule` returns
 * the module already loaded, when it is.
 */

/** For a spawn: git, a shell command, a hook, an MCP server. */
export function childProcess(): typeof import("node:child_process") {
  return process.getBuiltinModule("node:child_process");
}

/** For reading a stream line by line. */
export function readline(): typeof import("node:readline") {
  return process.getBuiltinModule("node:readline");
}

/** For a worker thread (a big history's parse). */
export function workerThreads(): typeof import("node:worker_threads") {
  return process.getBuiltinModule("node:worker_threads");
}

/**
 * The git CLI, run for the shadow repository only (docs/checkpoints.md): async, through the
 * child's small shell (git-spawner.ts: forking the child itself held its loop for milliseconds
 * a call) or `execFile` where there is none, a timeout, an environment that names the shadow GIT_DIR, its own index and the workspace as
 * work tree, and that shuts out everything of the user's git (system and global config, hooks,
 * GIT_* variables inherited from a hook or a script, pagers, prompts, background gc).
 */
import { dirname } from "node:path";
import { runThroughShell, shellSpawnerUsable } from "./git-spawner.js";

export interface GitPlace {
  /** The shadow repository (MC_HOME/checkpoints/<key>). */
  gitDir: string;
  /** The canonical workspace (none for `init`, which makes the shadow repository itself). */
  workTree?: string;
  /** The index this operation uses (a private copy: shadow-repo.ts). */
  indexFile?: string;
}

export interface GitRun {
  /** The child's environment: PATH is taken from it. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  input?: string | Buffer;
  signal?: AbortSignal;
  /** Largest stdout kept (default 64 MiB); past it the call fails. */
  maxBytes?: number;
  /** Extra `-c name=value` settings for this call. */
  config?: string[];
  /**
   * Work beside a turn's latency path (the checkpoint before the turn, beside its first model
   * call): git runs under `nice -n 10` (through the shell only), so that on a busy machine the
   * child reading the model's stream gets the CPU first. Nobody waits on that checkpoint until
   * the turn's first tool.
   */
  background?: boolean;
}

/** A git call that failed: its exit, its timeout, or a missing git. Never carries output. */
export class GitFailed extends Error {
  constructor(
    readonly reason: "failed" | "timeout" | "missing" | "cancelled",
    readonly exitCode: number | null = null,
  ) {
    super(`git ${reason}`);
  }
}

/** Settings every call gets on its command line: the shadow repo's behaviour, whatever else. */
const FIXED_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.fileMode=true",
  "core.ignoreCase=false",
  "core.precomposeUnicode=false",
  "core.quotePath=false",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.bigFileThreshold=1m",
  "gc.auto=0",
  "maintenance.auto=false",
  "commit.gpgSign=false",
  "advice.addEmbeddedRepo=false",
  "advice.addIgnoredFile=false",
  "safe.directory=*",
];

/** The environment of a shadow-repository call: nothing of the user's git gets in. */
function gitEnv(place: GitPlace, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env))
    if (!name.startsWith("GIT_") && value !== undefined) clean[name] = value;
  return {
    ...clean,
    GIT_DIR: place.gitDir,
    ...(place.workTree ? { GIT_WORK_TREE: place.workTree } : {}),
    ...(place.indexFile ? { GIT_INDEX_FILE: place.indexFile } : {}),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_AUTHOR_NAME: "mc-agent",
    GIT_AUTHOR_EMAIL: "checkpoints@mc-agent.invalid",
    GIT_COMMITTER_NAME: "mc-agent",
    GIT_COMMITTER_EMAIL: "checkpoints@mc-agent.invalid",
    GIT_PAGER: "cat",
    LC_ALL: "C",
  };
}

/** Runs `git <args>` for the shadow repository; resolves with stdout (bytes). */
export function runGit(place: GitPlace, args: string[], run: GitRun): Promise<Buffer> {
  const config = [...FIXED_CONFIG, ...(run.config ?? [])].flatMap((c) => ["-c", c]);
  if (shellSpawnerUsable(run.env)) return runGitInShell(place, config, args, run);
  return new Promise((resolve, reject) => {
    // node:child_process at the first spawn, not with this module: a start that spawns nothing
    // before its answer does not load it (3-5 ms; docs/acp.md, "Start-up").
    const child = process.getBuiltinModule("node:child_process").execFile(
      "git",
      [...config, ...args],
      {
        cwd: place.workTree ?? dirname(place.gitDir),
        env: gitEnv(place, run.env),
        encoding: "buffer",
        maxBuffer: run.maxBytes ?? 64 * 1024 * 1024,
        timeout: run.timeoutMs,
        killSignal: "SIGKILL",
        windowsHide: true,
        ...(run.signal ? { signal: run.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if (run.env.MC_CHECKPOINT_DEBUG) process.stderr.write(`git ${args[0]}: ${stderr}\n`);
        const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        if (failure.code === "ENOENT") return reject(new GitFailed("missing"));
        if (run.signal?.aborted) return reject(new GitFailed("cancelled"));
        if (failure.killed) return reject(new GitFailed("timeout"));
        const code = typeof failure.code === "number" ? failure.code : null;
        reject(new GitFailed("failed", code));
      },
    );
    // A closed stdin (git read all it wanted, or failed early) is not our error.
    child.stdin?.on("error", () => {});
    child.stdin?.end(run.input ?? "");
  });
}

/** The same call through the child's shell (git-spawner.ts), with the same failures. */
async function runGitInShell(
  place: GitPlace,
  config: string[],
  args: string[],
  run: GitRun,
): Promise<Buffer> {
  const outcome = await runThroughShell({
    command: "git",
    args: [...config, ...args],
    cwd: place.workTree ?? dirname(place.gitDir),
    env: gitEnv(place, run.env),
    input: run.input,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    maxBytes: run.maxBytes ?? 64 * 1024 * 1024,
    keepStderr: Boolean(run.env.MC_CHECKPOINT_DEBUG),
    nice: run.background === true,
  });
  if (outcome.ok) return outcome.stdout;
  if (run.env.MC_CHECKPOINT_DEBUG) process.stderr.write(`git ${args[0]}: ${outcome.stderr}\n`);
  if (run.signal?.aborted) throw new GitFailed("cancelled");
  if (outcome.why === "killed") throw new GitFailed("timeout");
  // 127: `env` found no git on the PATH (execFile's ENOENT).
  if (outcome.why === "status" && outcome.status === 127) throw new GitFailed("missing");
  throw new GitFailed("failed", outcome.why === "status" ? outcome.status : null);
}

/**
 * Runs one command as the leader of its own process group (`detached`), stdin /dev/null, and
 * makes sure no process of the group outlives the call: on a timeout or an abort the group gets
 * SIGTERM, then SIGKILL 1 s later; when the shell exits by itself, whatever it left in the group
 * is killed once the output pipes have drained (or after a short grace if a leftover holds them).
 * A process that leaves the group (setsid) is beyond reach, as with any shell. If the child
 * itself dies (kill -9), a watchdog in the group ends it (group-watchdog.ts).
 * Output still in the pipes when that grace ends is read first: the grace only gives up on
 * pipes that stay silent, so a late event loop (a loaded machine) loses nothing written.
 */
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { findOnPath } from "./find-on-path.js";
import { watchedShell } from "./group-watchdog.js";
import { signalGroup, waitGroupGone } from "./process-group.js";

export const KILL_GRACE_MS = 1000;
/** After the shell exits, how long a leftover may hold the pipes before the group is killed. */
const EXIT_DRAIN_MS = 500;
/** After SIGKILL, how long to wait for the pipes to close before giving up on them. */
const CLOSE_WAIT_MS = 1000;
/** After the final SIGKILL, how long the group may take to die (a process stuck in the kernel). */
const GROUP_GONE_MS = 2000;
/**
 * Past the grace, the pipes are drained on while they bring output, but no further than this:
 * more than two full pipes can hold (Linux's pipe-max-size, 1 MiB, each) after the group was
 * killed can only come from a writer outside the group (setsid), which is not waited for.
 */
const LATE_OUTPUT_BYTES = 2 * 1024 * 1024;

export type ShellEnd =
  | { kind: "exited"; code: number | null; signal: string | null }
  | { kind: "timed_out" }
  | { kind: "interrupted" };

interface ShellRun {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * Starts the shell's argv some other way (inside the OS sandbox, src/agent/sandbox/); `done`
   * runs once the command's processes are gone, or it failed to start. It may reject: then
   * nothing runs and the call rejects with its error (an abort: the call is interrupted).
   */
  wrap?: (
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
    signal: AbortSignal,
  ) => Promise<WrappedLaunch>;
  /** Called in arrival order, one call at a time; the pipes pause while it runs. */
  onChunk(stream: "stdout" | "stderr", bytes: Buffer, text: string): Promise<void>;
}

interface WrappedLaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  done(): void;
}

/** `bash` from the environment's PATH, else `/bin/sh`. */
export function shellProgram(env: NodeJS.ProcessEnv): string {
  return findOnPath("bash", env) ?? "/bin/sh";
}

export async function runShell(run: ShellRun): Promise<ShellEnd> {
  if (run.signal.aborted) return { kind: "interrupted" };
  const argv = [shellProgram(run.env), "-c", run.command];
  let launch: WrappedLaunch;
  try {
    // Unsandboxed, under the watchdog that ends the group if we die (group-watchdog.ts): its
    // stdin is the pipe it watches. Sandboxed, bwrap's --die-with-parent does that.
    launch = run.wrap
      ? await run.wrap(argv, run.env, run.signal)
      : { ...watchedShell(argv[0] as string, run.command), env: run.env, done() {} };
  } catch (error) {
    if (run.signal.aborted) return { kind: "interrupted" };
    throw error;
  }
  // Interrupted while the sandbox looked at the workspace: nothing starts.
  if (run.signal.aborted) {
    launch.done();
    return { kind: "interrupted" };
  }
  return spawnShell(run, launch);
}

function spawnShell(run: ShellRun, launch: WrappedLaunch): Promise<ShellEnd> {
  const watched = !run.wrap;
  return new Promise<ShellEnd>((resolve, reject) => {
    // node:child_process at the first spawn, not with this module: a start that spawns nothing
    // before its answer does not load it (3-5 ms; docs/acp.md, "Start-up").
    const child = process.getBuiltinModule("node:child_process").spawn(launch.file, launch.args, {
      cwd: run.cwd,
      env: launch.env,
      detached: true,
      stdio: [watched ? "pipe" : "ignore", "pipe", "pipe"],
    }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
    child.stdin?.on("error", () => {});
    /** Our end of the watchdog's pipe, closed once the group is gone (or never started). */
    const unwatch = () => child.stdin?.destroy();
    const pgid = child.pid;
    const timers: NodeJS.Timeout[] = [];
    let stopped: "timed_out" | "interrupted" | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let delivery = Promise.resolve();
    let pending = 0;
    let closed = false;
    /** Bytes read since the last look at the pipes, and since the group was killed on exit. */
    let readSinceLook = 0;
    let lateBytes: number | null = null;

    const kill = (name: NodeJS.Signals) => {
      if (pgid !== undefined) signalGroup(pgid, name);
    };
    const stop = (why: "timed_out" | "interrupted") => {
      if (stopped || closed) return;
      stopped = why;
      kill("SIGTERM");
      timers.push(setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS));
    };
    const onAbort = () => stop("interrupted");
    const finish = async () => {
      await delivery;
      for (const timer of timers) clearTimeout(timer);
      run.signal.removeEventListener("abort", onAbort);
      // Leftovers that closed their pipes (`sleep 100 >/dev/null &`), and the wait for them:
      // the call ends when nothing of the group runs any more.
      kill("SIGKILL");
      if (pgid !== undefined) await waitGroupGone(pgid, GROUP_GONE_MS);
      unwatch();
      if (stopped) resolve({ kind: stopped });
      else resolve({ kind: "exited", code: exit?.code ?? null, signal: exit?.signal ?? null });
    };

    child.on("error", (error) => {
      unwatch();
      for (const timer of timers) clearTimeout(timer);
      run.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    if (pgid === undefined) return; // spawn failed: "error" follows
    run.signal.addEventListener("abort", onAbort, { once: true });
    timers.push(setTimeout(() => stop("timed_out"), run.timeoutMs));

    for (const name of ["stdout", "stderr"] as const) {
      const stream = child[name];
      const decoder = new StringDecoder("utf8");
      const deliver = (bytes: Buffer, text: string, after: () => void) => {
        pending++;
        delivery = delivery
          .then(() => run.onChunk(name, bytes, text))
          // A consumer that cannot take output any more (the client is gone) stops the command.
          .catch(() => stop("interrupted"))
          .finally(() => {
            pending--;
            after();
          });
      };
      stream.on("data", (bytes: Buffer) => {
        readSinceLook += bytes.length;
        if (lateBytes !== null) lateBytes += bytes.length;
        stream.pause();
        deliver(bytes, decoder.write(bytes), () => stream.resume());
      });
      stream.on("end", () => {
        const rest = decoder.end();
        if (rest) deliver(Buffer.alloc(0), rest, () => {});
      });
    }
    // Only a process outside the group (setsid) can hold the pipes once the group is killed:
    // then stop waiting for them, but never while our own consumer is still taking output, nor
    // while the pipes still bring output the group wrote.
    const lookAgainLater = () => {
      readSinceLook = 0;
      timers.push(setTimeout(abandonPipes, CLOSE_WAIT_MS));
    };
    const abandonPipes = () => {
      if (closed) return;
      if (pending > 0) return lookAgainLater();
      // A timer runs before the event loop polls the pipes: a loop that was late (a busy
      // machine) may not have read what is waiting in them yet. Look again after one poll.
      readSinceLook = 0;
      setImmediate(() => {
        if (closed) return;
        // An interrupt or the timeout ends the wait for late output too.
        const outsider = (lateBytes ?? 0) > LATE_OUTPUT_BYTES;
        if (pending > 0 || (readSinceLook > 0 && !outsider && !stopped)) return lookAgainLater();
        closed = true;
        child.stdout.destroy();
        child.stderr.destroy();
        void finish();
      });
    };
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // A leftover holding the pipes would keep "close" away: kill the group after a grace.
      timers.push(
        setTimeout(() => {
          lateBytes = 0;
          kill("SIGKILL");
        }, EXIT_DRAIN_MS),
        setTimeout(abandonPipes, EXIT_DRAIN_MS + CLOSE_WAIT_MS),
      );
    });
    child.on("close", () => {
      if (closed) return;
      closed = true;
      void finish();
    });
  }).finally(() => launch.done());
}

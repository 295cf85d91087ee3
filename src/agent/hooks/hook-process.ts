/**
 * Runs one hook command (docs/hooks.md, "Running"): `bash -c command` (else `/bin/sh`) in the
 * workspace, as the leader of its own process group, its stdin the event's JSON, its stdout and
 * stderr each kept to HOOK_OUTPUT_BYTES. Never in the sandbox: a hook is the user's own code.
 * No process of the group outlives the run: at its timeout or the turn's end (interrupt,
 * shutdown, EOF) the group gets SIGTERM, then SIGKILL; when the hook exits, what it left in its
 * group is killed; and if the child itself dies (kill -9), the watchdog (group-watchdog.ts,
 * watching fd 3) ends the group.
 */
import type { ChildProcess } from "node:child_process";
import { watchedLaunch } from "../tools/group-watchdog.js";
import { signalGroup, waitGroupGone } from "../tools/process-group.js";
import { KILL_GRACE_MS, shellProgram } from "../tools/shell-process.js";

/** What is kept of each of a hook's stdout and stderr (the rest is read and dropped). */
export const HOOK_OUTPUT_BYTES = 65_536;
/** After the hook exits, how long a leftover may hold its pipes before the group is killed. */
const EXIT_DRAIN_MS = 500;
/** After that kill, how long the pipes may stay open before they are given up. */
const CLOSE_WAIT_MS = 1000;
/** After the final SIGKILL, how long the group may take to die. */
const GROUP_GONE_MS = 2000;

export interface HookRun {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface HookEnd {
  kind: "exited" | "timed_out" | "interrupted" | "not_started";
  /** The exit code; null when it was killed by a signal or did not exit by itself. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runHookProcess(run: HookRun): Promise<HookEnd> {
  const none = { code: null, stdout: "", stderr: "" };
  if (run.signal.aborted) return Promise.resolve({ kind: "interrupted", ...none });
  const launch = watchedLaunch(3, shellProgram(run.env), ["-c", run.command]);
  return new Promise<HookEnd>((resolve) => {
    let child: ChildProcess;
    try {
      // node:child_process at the first spawn, not with this module: a start that spawns nothing
      // before its answer does not load it (3-5 ms; docs/acp.md, "Start-up").
      child = process.getBuiltinModule("node:child_process").spawn(launch.file, launch.args, {
        cwd: run.cwd,
        env: run.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      });
    } catch {
      return resolve({ kind: "not_started", ...none });
    }
    new GroupRun(child, run, resolve).begin();
  });
}

/** One spawned hook, from its start to the moment nothing of its group runs. */
class GroupRun {
  private stopped: "timed_out" | "interrupted" | null = null;
  private code: number | null = null;
  private finished = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly out = new Bounded();
  private readonly err = new Bounded();
  private readonly onAbort = () => this.stop("interrupted");

  constructor(
    private readonly child: ChildProcess,
    private readonly run: HookRun,
    private readonly resolve: (end: HookEnd) => void,
  ) {}

  begin(): void {
    const { child, run } = this;
    child.on("error", () => this.finish("not_started"));
    if (child.pid === undefined) return;
    run.signal.addEventListener("abort", this.onAbort, { once: true });
    this.timers.push(setTimeout(() => this.stop("timed_out"), run.timeoutMs));
    child.stdout?.on("data", (bytes: Buffer) => this.out.push(bytes));
    child.stderr?.on("data", (bytes: Buffer) => this.err.push(bytes));
    child.stdin?.on("error", () => {}); // a hook that never reads its stdin
    child.stdin?.end(run.stdin);
    child.on("exit", (code) => {
      this.code = code;
      // A leftover holding the pipes keeps "close" away: the group is killed after a grace.
      this.timers.push(setTimeout(() => this.kill("SIGKILL"), EXIT_DRAIN_MS));
      // Only a process outside the group (setsid) can hold them past that: stop waiting.
      this.timers.push(setTimeout(() => this.abandonPipes(), EXIT_DRAIN_MS + CLOSE_WAIT_MS));
    });
    // Not the child's "close": that waits for fd 3 too, which the watchdog holds to the end.
    let open = 2;
    let exited = false;
    const settle = () => {
      if (open === 0 && exited) void this.finish(this.stopped ?? "exited");
    };
    child.on("exit", () => {
      exited = true;
      settle();
    });
    for (const stream of [child.stdout, child.stderr])
      stream?.on("close", () => {
        open -= 1;
        settle();
      });
  }

  private abandonPipes(): void {
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    void this.finish(this.stopped ?? "exited");
  }

  private kill(signal: NodeJS.Signals): void {
    if (this.child.pid !== undefined) signalGroup(this.child.pid, signal);
  }

  private stop(why: "timed_out" | "interrupted"): void {
    if (this.stopped || this.finished) return;
    this.stopped = why;
    this.kill("SIGTERM");
    this.timers.push(setTimeout(() => this.kill("SIGKILL"), KILL_GRACE_MS));
  }

  private async finish(kind: HookEnd["kind"]): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.run.signal.removeEventListener("abort", this.onAbort);
    this.kill("SIGKILL");
    if (this.child.pid !== undefined) await waitGroupGone(this.child.pid, GROUP_GONE_MS);
    // Our end of the watchdog's pipe (fd 3): closed once the group is gone.
    (this.child.stdio[3] as NodeJS.WritableStream | null)?.end?.();
    this.child.stdio[3]?.destroy?.();
    const exited = kind === "exited";
    this.resolve({
      kind,
      code: exited ? this.code : null,
      stdout: this.out.text(),
      stderr: this.err.text(),
    });
  }
}

/** The first HOOK_OUTPUT_BYTES of a stream; the rest is read and dropped. */
class Bounded {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  push(bytes: Buffer): void {
    const room = HOOK_OUTPUT_BYTES - this.length;
    if (room <= 0) return;
    const kept = bytes.subarray(0, room);
    this.chunks.push(kept);
    this.length += kept.length;
  }

  text(): string {
    // A character cut at the bound decodes as U+FFFD: the text stays well-formed.
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

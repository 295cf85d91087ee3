/**
 * The checkpoints' git processes, started by a small `/bin/sh` kept for that instead of by the
 * child itself (docs/checkpoints.md, "The latency path").
 *
 * Why: Node forks the whole child to start a process (libuv's `fork` then `exec`) and its loop
 * waits until the new process has exec'd, which on Linux costs time in proportion to the
 * child's mapped memory: 1.3 ms for a bare Node, 4-5 ms at a turn's 60-90 MB, more on a loaded
 * machine (the forked copy must be scheduled and torn down before the parent goes on). A
 * checkpoint runs six git calls beside the turn's first model call, and a stream's first delta
 * that arrived during one of them waited for it: that was most of the first-delta tail
 * against Codex app-server. A shell of a megabyte forks in tens of microseconds, and the child
 * only writes it a line and later reads one back.
 *
 * The protocol, one line each way per call: the child writes a command that runs in the
 * background (`{ cd DIR && sh -c 'echo "p $0 $$" >&3; exec "$@" 3>&-' N env -i VARS... git
 * ARGS... 3>&1 <IN >OUT 2>ERR; echo "d N $?"; } & echo "b N $!"`), so calls run side by side as
 * before; the shell answers `b N JOB` (the background job's pid), `p N PID` (the process that
 * becomes git: `sh -c` execs `env`, which execs git, one pid throughout, so a timeout or an
 * abort kills git itself) and `d N STATUS` once it exited. Once both `b` and `d` came, the child
 * writes `wait JOB`: the shell reaps the job (a shell reading commands never waits for a
 * background job by itself, and each would stay a zombie). Every value is single-quoted (no expansion); stdin and stdout go through files in a
 * private temp folder (mode 0700), unlinked after each call. The shell ends when the child's
 * end of its stdin closes (the child exiting, however it exits); a git still running then
 * finishes on its own, within its bound. If the shell dies, the calls in flight fail (a
 * `checkpoint_failed`, as any git failure) and the next call starts a new one.
 *
 * Left as before: `MC_AGENT_GIT_SPAWN=direct` (and any platform without `/bin/sh`) runs git with
 * `execFile` directly (git.ts).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sweepStaleDirs } from "./stale-dirs.js";

export interface ShellCall {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer | undefined;
  /** Kill and fail past this. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Largest stdout kept; past it the call fails. */
  maxBytes: number;
  /** Keep stderr (for MC_CHECKPOINT_DEBUG); otherwise it is dropped. */
  keepStderr?: boolean;
  /** Run it under `nice -n 10` (when the shell finds `nice`; else at the usual priority). */
  nice?: boolean;
}

type ShellOutcome =
  | { ok: true; stdout: Buffer }
  | {
      ok: false;
      /** `status`: its exit status; `killed`: our timeout or abort; `too_big`: past maxBytes. */
      why: "status" | "killed" | "too_big" | "shell_gone";
      status: number | null;
      stderr: string;
    };

const SHELL = "/bin/sh";
/** The spawner's temp folder: `<tmpdir>/mc-agent-git-<pid>-XXXXXX` (stale-dirs.ts sweeps them). */
const DIR_PREFIX = "mc-agent-git-";
/**
 * What runs the command: it tells its pid on fd 3 (the spawner shell's stdout), then becomes
 * the command (`exec`: the same pid, so a kill reaches it). The nice one runs it through
 * `nice`, which execs it in turn, when there is one on the PATH.
 */
const PLAIN_SCRIPT = `'echo "p $0 $$" >&3; exec "$@" 3>&-'`;
const NICE_SCRIPT = `'echo "p $0 $$" >&3; if command -v nice >/dev/null 2>&1; then exec nice -n 10 "$@" 3>&-; else exec "$@" 3>&-; fi'`;

/** Whether the shell route is on here (see the header): else git.ts uses execFile. */
export function shellSpawnerUsable(env: NodeJS.ProcessEnv): boolean {
  return env.MC_AGENT_GIT_SPAWN !== "direct" && process.platform !== "win32" && existsSync(SHELL);
}

interface Unrefable {
  ref?: () => void;
  unref?: () => void;
}

interface Pending {
  pid: number | null;
  kill: boolean;
  done: (status: number | null) => void;
}

class ShellSpawner {
  private readonly shell: ChildProcess;
  private readonly dir: string;
  private readonly pending = new Map<string, Pending>();
  /**
   * Background jobs to reap, by call: the job's pid (its `b` line came first) or `done` (its
   * `d` line came first). A non-interactive shell never waits for a background job on its own:
   * each would stay a zombie for the child's life (issue 35, item 9).
   */
  private readonly jobs = new Map<string, number | "done">();
  private next = 0;
  private buffer = "";
  gone = false;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
    // node:child_process at the first spawn, not with this module: a start that spawns nothing
    // before its answer does not load it (3-5 ms; docs/acp.md, "Start-up").
    this.shell = process
      .getBuiltinModule("node:child_process")
      .spawn(SHELL, [], { stdio: ["pipe", "pipe", "ignore"] });
    // Neither the shell nor its pipes keep the child's loop alive, but for a call in flight
    // its stdout does (`holdLoop`): the call's answer comes on it.
    this.shell.unref();
    for (const stream of [this.shell.stdin, this.shell.stdout] as const)
      (stream as unknown as Unrefable | null)?.unref?.();
    this.shell.stdin?.on("error", () => this.fail());
    this.shell.stdout?.setEncoding("latin1");
    this.shell.stdout?.on("data", (chunk: string) => this.read(chunk));
    this.shell.on("exit", () => this.fail());
    this.shell.on("error", () => this.fail());
  }

  async run(call: ShellCall): Promise<ShellOutcome> {
    const id = String(++this.next);
    const base = join(this.dir, id);
    const hasInput = call.input !== undefined && call.input.length > 0;
    const files = [`${base}.out`, ...(hasInput ? [`${base}.in`] : [])];
    if (call.keepStderr) files.push(`${base}.err`);
    try {
      if (hasInput) await writeFile(`${base}.in`, call.input as string | Buffer);
      const status = await this.start(id, call, base, hasInput);
      if (status === undefined) return { ok: false, why: "shell_gone", status: null, stderr: "" };
      const stderr = call.keepStderr ? await readFile(`${base}.err`, "utf8").catch(() => "") : "";
      if (status.killed) return { ok: false, why: "killed", status: status.code, stderr };
      if (status.code !== 0) return { ok: false, why: "status", status: status.code, stderr };
      if ((await stat(`${base}.out`)).size > call.maxBytes)
        return { ok: false, why: "too_big", status: 0, stderr };
      return { ok: true, stdout: await readFile(`${base}.out`) };
    } finally {
      await Promise.all(files.map((file) => unlink(file).catch(() => {})));
    }
  }

  /** Writes the call's line; resolves with its exit status (undefined: the shell went away). */
  private start(
    id: string,
    call: ShellCall,
    base: string,
    hasInput: boolean,
  ): Promise<{ code: number | null; killed: boolean } | undefined> {
    return new Promise((resolve) => {
      if (this.gone) return resolve(undefined);
      let killed = false;
      const entry: Pending = { pid: null, kill: false, done: () => {} };
      const kill = () => {
        killed = true;
        entry.kill = true;
        if (entry.pid !== null) killPid(entry.pid);
      };
      const timer = setTimeout(kill, call.timeoutMs);
      if (call.signal?.aborted) kill();
      call.signal?.addEventListener("abort", kill, { once: true });
      entry.done = (code) => {
        clearTimeout(timer);
        call.signal?.removeEventListener("abort", kill);
        this.pending.delete(id);
        this.holdLoop();
        resolve(code === null && !killed ? undefined : { code, killed });
      };
      this.pending.set(id, entry);
      this.holdLoop();
      const vars = Object.entries(call.env)
        .filter(([, value]) => value !== undefined)
        .map(([name, value]) => quote(`${name}=${value}`));
      const line = [
        `{ cd ${quote(call.cwd)} && sh -c ${call.nice ? NICE_SCRIPT : PLAIN_SCRIPT} ${id}`,
        "env -i",
        ...vars,
        quote(call.command),
        ...call.args.map(quote),
        `3>&1 <${hasInput ? quote(`${base}.in`) : "/dev/null"} >${quote(`${base}.out`)}`,
        `2>${call.keepStderr ? quote(`${base}.err`) : "/dev/null"}; echo "d ${id} $?"; } &`,
        `echo "b ${id} $!"\n`,
      ].join(" ");
      this.shell.stdin?.write(line);
    });
  }

  private holdLoop(): void {
    const stdout = this.shell.stdout as unknown as Unrefable | null;
    if (this.pending.size > 0) stdout?.ref?.();
    else stdout?.unref?.();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let lf = this.buffer.indexOf("\n");
    while (lf !== -1) {
      const [kind, id, value] = this.buffer.slice(0, lf).split(" ");
      this.buffer = this.buffer.slice(lf + 1);
      const entry = this.pending.get(id ?? "");
      if (entry && kind === "p") {
        entry.pid = Number(value);
        if (entry.kill) killPid(entry.pid);
      } else if (kind === "d") {
        entry?.done(Number(value));
        this.reap(id ?? "", "done");
      } else if (kind === "b") this.reap(id ?? "", Number(value));
      lf = this.buffer.indexOf("\n");
    }
  }

  /**
   * Once a job both said its pid (`b`) and that it is done (`d`, its last word), the shell waits
   * for it: a wait of microseconds, since the job is exiting.
   */
  private reap(id: string, seen: number | "done"): void {
    const other = this.jobs.get(id);
    if (other === undefined) {
      this.jobs.set(id, seen);
      return;
    }
    this.jobs.delete(id);
    const pid = seen === "done" ? other : seen;
    if (typeof pid === "number" && Number.isInteger(pid) && pid > 0)
      this.shell.stdin?.write(`wait ${pid}\n`);
  }

  /** The shell went away: every call in flight fails, the next call starts another shell. */
  private fail(): void {
    if (this.gone) return;
    this.gone = true;
    if (spawner === this) spawner = null;
    for (const entry of [...this.pending.values()]) entry.done(null);
    rmSync(this.dir, { recursive: true, force: true });
  }

  close(): void {
    this.shell.stdin?.end();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

let spawner: ShellSpawner | null = null;
let swept = false;

/** Runs one call through the child's shell, started on the first call. */
export function runThroughShell(call: ShellCall): Promise<ShellOutcome> {
  if (!spawner) {
    // Folders of children killed with SIGKILL (no exit handler ran) go at the next start.
    if (!swept) {
      swept = true;
      void sweepStaleDirs(tmpdir(), DIR_PREFIX);
    }
    const made = new ShellSpawner();
    spawner = made;
    // The temp folder goes with the child (its files are unlinked call by call).
    process.once("exit", () => made.close());
  }
  return spawner.run(call);
}

function killPid(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** One shell word, taken literally: single quotes, each `'` as `'\''`. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * `shell` in the editor's terminal (tool-host.ts): the same `bash -c` in the workspace, with our
 * environment, our timeout and our bounds; only the process is the editor's, so its terminal
 * shows the command. The output is followed by polling `terminal/output` (the editor keeps the
 * last `outputByteLimit` bytes): what it adds streams as `tool_output` up to `tool_stream_bytes`
 * and feeds the model's head-and-tail capture. A timeout or an interrupt kills the command
 * (`terminal/kill`); the terminal is always released, whatever happened.
 */
import type { HeadTailCapture, StreamBudget } from "./shell-output.js";
import { type ShellEnd, shellProgram } from "./shell-process.js";
import { type ToolContext, ToolError } from "./tool.js";
import type { HostExit, HostTerminal, HostTerminalOutput, ToolHost } from "./tool-host.js";

/** How often the terminal's output is looked at while the command runs. */
export const POLL_MS = 200;
/**
 * How long an answer to `terminal/output`, `kill` or `release` is waited for: an editor that
 * stopped answering must not hold the call past its timeout (an interrupt bounds it anyway).
 */
const ANSWER_MS = 5000;

/** A host that offers terminals. */
export type TerminalHost = Required<Pick<ToolHost, "createTerminal">>;

type Ending = { kind: "exit"; exit: HostExit } | { kind: "timeout" | "abort" | "lost" };

export async function runInHostTerminal(
  host: TerminalHost,
  command: string,
  timeoutMs: number,
  ctx: ToolContext,
  capture: HeadTailCapture,
  budget: StreamBudget,
): Promise<ShellEnd> {
  if (ctx.signal.aborted) return { kind: "interrupted" };
  let terminal: HostTerminal;
  try {
    terminal = await host.createTerminal({
      itemId: ctx.itemId ?? null,
      program: shellProgram(ctx.env),
      args: ["-c", command],
      cwd: ctx.workspace,
      env: terminalEnv(ctx.env, ctx.credentialVariables),
      // At least what may stream: then the stream never misses output the editor dropped.
      outputByteLimit: Math.max(ctx.limits.tool_stream_bytes, ctx.limits.tool_output_bytes),
    });
  } catch {
    throw new ToolError("the editor's terminal could not start the command");
  }
  const follower = new OutputFollower(capture, budget, ctx);
  const done = new AbortController();
  try {
    const polling = poll(terminal, follower, done.signal);
    const ending = await firstEnding(terminal, timeoutMs, ctx.signal, done.signal);
    if (ending.kind !== "exit") await answer(terminal.kill());
    done.abort();
    await polling;
    const last = await answer(terminal.output());
    if (last) await follower.finish(last);
    switch (ending.kind) {
      case "exit":
        return { kind: "exited", code: ending.exit.exitCode, signal: ending.exit.signal };
      case "timeout":
        return { kind: "timed_out" };
      case "abort":
        return { kind: "interrupted" };
      case "lost":
        if (ctx.signal.aborted) return { kind: "interrupted" };
        throw new ToolError("the editor's terminal stopped answering while the command ran");
    }
  } finally {
    done.abort();
    await answer(terminal.release());
  }
}

/** The command's exit, the timeout, or the turn's interrupt, whichever comes first. */
function firstEnding(
  terminal: HostTerminal,
  timeoutMs: number,
  signal: AbortSignal,
  done: AbortSignal,
): Promise<Ending> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const exited = terminal.waitForExit(done).then(
    (exit): Ending => ({ kind: "exit", exit }),
    (): Ending => ({ kind: "lost" }),
  );
  const stopped = new Promise<Ending>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
    onAbort = () => resolve({ kind: "abort" });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([exited, stopped]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  });
}

/** Looks at the output every POLL_MS until the command ends or nothing more may stream. */
async function poll(
  terminal: HostTerminal,
  follower: OutputFollower,
  done: AbortSignal,
): Promise<void> {
  while (!done.aborted && follower.following) {
    await pause(POLL_MS, done);
    if (done.aborted) return;
    const output = await answer(terminal.output());
    if (output) await follower.see(output);
  }
}

/** The host's answer, or null when it failed or did not come within ANSWER_MS. */
function answer<T>(request: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ANSWER_MS);
  });
  return Promise.race([request.catch(() => null), late]).finally(() => clearTimeout(timer));
}

function pause(ms: number, done: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      done.removeEventListener("abort", finish);
      resolve();
    }
    done.addEventListener("abort", finish, { once: true });
  });
}

/**
 * What the editor's output adds since the last look. While it only grows, the new part is
 * streamed and captured exactly. Once the editor has dropped the start (`truncated`) or the text
 * no longer extends what was seen, the added part cannot be known: nothing more streams, and the
 * model is shown the head captured so far, an omission line and the editor's last output.
 */
class OutputFollower {
  private seen = "";
  private lost = false;

  constructor(
    private readonly capture: HeadTailCapture,
    private readonly budget: StreamBudget,
    private readonly ctx: ToolContext,
  ) {}

  get following(): boolean {
    return !this.lost && !this.budget.spent;
  }

  async see(output: HostTerminalOutput): Promise<void> {
    if (this.lost) return;
    if (output.truncated || !output.output.startsWith(this.seen)) {
      this.lost = true;
      return;
    }
    const added = output.output.slice(this.seen.length);
    this.seen = output.output;
    if (added === "") return;
    this.capture.push(added);
    const streamed = this.budget.take(added);
    if (streamed !== "") await this.ctx.onOutput("stdout", streamed);
  }

  async finish(output: HostTerminalOutput): Promise<void> {
    await this.see(output);
    if (this.lost) this.capture.endWith(output.output);
  }
}

/**
 * Our environment for the command, and every credential it lacks set to "": ACP can only add
 * variables to the editor's environment, so a key the editor has must be blanked to stay out.
 * `credentials`: every credential variable the child knows (the standard ones and each
 * configured `api_key_env`), as `shell` removes them (shell-env.ts).
 */
function terminalEnv(
  env: NodeJS.ProcessEnv,
  credentials: readonly string[],
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of [...credentials, ...Object.keys(process.env)])
    if (env[name] === undefined) result[name] = "";
  for (const [name, value] of Object.entries(env)) if (value !== undefined) result[name] = value;
  return result;
}

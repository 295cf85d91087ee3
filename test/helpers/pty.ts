import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";

/** True when util-linux `script` is installed (it gives a command a real pseudo-terminal). */
export function hasScript(): boolean {
  return spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;
}

/**
 * Runs a shell command line under a real pty (`script -qfec`): the program sees TTYs on
 * stdin/stdout/stderr; what we write to `input` is typed at its terminal (so "\x03" is Ctrl-C,
 * delivered as SIGINT by the terminal's line discipline).
 */
export class PtyRun {
  output = "";
  readonly done: Promise<number | null>;
  private readonly proc: ChildProcessWithoutNullStreams;

  constructor(
    commandLine: string,
    options: { cwd: string; env: Record<string, string | undefined> },
  ) {
    this.proc = spawn("script", ["-qfec", commandLine, "/dev/null"], {
      cwd: options.cwd,
      env: { TERM: "xterm", COLUMNS: "100", LINES: "30", ...options.env },
    });
    this.proc.stdout.setEncoding("utf8").on("data", (t: string) => {
      this.output += t;
    });
    this.proc.stderr.setEncoding("utf8").on("data", (t: string) => {
      this.output += t;
    });
    this.done = new Promise((resolve) => this.proc.on("close", (code) => resolve(code)));
  }

  type(text: string): void {
    this.proc.stdin.write(text);
  }

  /** Resolves once the output contains `text`; rejects after `ms`. */
  async waitFor(text: string, ms = 10_000): Promise<void> {
    const until = Date.now() + ms;
    while (!this.output.includes(text)) {
      if (Date.now() > until)
        throw new Error(
          `no "${text}" on the terminal; got: ${JSON.stringify(this.output.slice(-600))}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  kill(): void {
    this.proc.kill("SIGKILL");
  }
}

/** Single-quotes for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { shellQuote } from "./pty.js";

/** True when tmux is installed. */
export function hasTmux(): boolean {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

/**
 * A command line in a detached tmux session of its own server (a private socket), so a test
 * reads the screen as a person sees it (`capture-pane`): what was redrawn in place shows once.
 * The pane stays after the command ends, so its last screen can still be read.
 */
export class TmuxRun {
  private readonly socket = `mc-test-${process.pid}-${randomBytes(4).toString("hex")}`;

  constructor(
    commandLine: string,
    options: { cwd: string; env: Record<string, string | undefined> },
  ) {
    const env = Object.entries(options.env)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${shellQuote(value as string)}`)
      .join(" ");
    const started = this.tmux(
      "new-session",
      "-d",
      "-x",
      "100",
      "-y",
      "40",
      "-c",
      options.cwd,
      `env -i TERM=xterm ${env} ${commandLine}; echo "[exit $?]"; sleep 60`,
    );
    if (started.status !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
  }

  /** The visible screen, trailing blank lines dropped. */
  screen(): string {
    return this.tmux("capture-pane", "-p").stdout.replace(/\n+$/, "");
  }

  /** Resolves with the screen once it contains `text`; rejects after `ms`. */
  async waitFor(text: string, ms = 40_000): Promise<string> {
    const until = Date.now() + ms;
    for (;;) {
      const screen = this.screen();
      if (screen.includes(text)) return screen;
      if (Date.now() > until) throw new Error(`no "${text}" on the screen; got:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops this test's own tmux server (and the command in it). */
  kill(): void {
    this.tmux("kill-server");
  }

  private tmux(...args: string[]) {
    return spawnSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }
}

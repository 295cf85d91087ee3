import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when tmux is installed (a real terminal emulator whose screen a test can read). */
export function hasTmux(): boolean {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

/**
 * A command in its own tmux server (a private socket, no config file), in one pane of
 * `width` × `height`: keys are sent as a person types them (`send-keys`), and the screen is
 * read as the terminal shows it (`capture-pane`), so cursor moves and erases count, not just the
 * bytes written. The pane stays after the command exits, so its exit status can be read.
 *
 * The command runs under a shell that writes its exit status to a file, which `exitStatus()`
 * reads: tmux can leave a pane's exited process unreaped (a zombie, the pane never marked dead:
 * seen with tmux 3.3a on a loaded machine), while the shell reaps its child itself. The shell
 * traps SIGINT with a no-op so that a Ctrl-C meant for the command does not end the shell first
 * (a caught signal, unlike an ignored one, is back to its default in the command). So a
 * command line should not `exec`: the shell would be gone, and only tmux's word would remain.
 */
export class TmuxRun {
  private readonly socket = `mc-test-${process.pid}-${randomBytes(4).toString("hex")}`;
  private alive = true;
  private readonly exitFile = join(tmpdir(), `${this.socket}.status`);

  constructor(
    commandLine: string,
    options: {
      cwd: string;
      env: Record<string, string | undefined>;
      width?: number;
      height?: number;
    },
  ) {
    const line = `trap : INT; ${commandLine}; echo "$?" > ${this.exitFile}`;
    // The server copies the environment of the client that starts it: the command's own.
    this.tmux(
      [
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        String(options.width ?? 100),
        "-y",
        String(options.height ?? 30),
      ],
      ["-c", options.cwd, line],
      { ...options.env, TERM: "xterm-256color" },
    );
    this.tmux(["set-option", "-t", "t", "remain-on-exit", "on"]);
    this.tmux(["set-option", "-t", "t", "history-limit", "5000"]);
  }

  /** Types `text` literally (no key names). */
  type(text: string): void {
    this.tmux(["send-keys", "-t", "t", "-l", text]);
  }

  /** Presses keys by tmux name: "Enter", "Tab", "M-Up", "C-c", "C-d". */
  press(...keys: string[]): void {
    this.tmux(["send-keys", "-t", "t", ...keys]);
  }

  /** The visible screen, one string per row, trailing spaces cut. */
  screen(): string[] {
    const out = this.tmux(["capture-pane", "-p", "-t", "t"]);
    return out.split("\n").map((line) => line.trimEnd());
  }

  /** Scrollback and screen, rows joined (wrapped rows are joined to their line). */
  all(): string {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", "t"]);
  }

  /** The command's exit status once it ended, else null. */
  exitStatus(): number | null {
    const written = this.writtenStatus();
    if (written !== null) return written;
    // A command line that `exec`s replaces the shell: only tmux can tell its status.
    const out = this.tmux([
      "display-message",
      "-p",
      "-t",
      "t",
      "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}",
    ]);
    const [dead, status, signal] = out.trim().split(" ");
    if (dead !== "1") return null;
    // The shell may have written its file and ended between the read above and tmux's answer.
    const late = this.writtenStatus();
    if (late !== null) return late;
    if (status !== undefined && status !== "") return Number(status);
    // Ended by a signal: 128 + its number, as a shell says it.
    return signal ? 128 + Number(signal) : null;
  }

  /** The status the wrapping shell wrote, once it has written the whole line. */
  private writtenStatus(): number | null {
    try {
      const written = readFileSync(this.exitFile, "utf8");
      return written.endsWith("\n") ? Number(written) : null;
    } catch {
      return null;
    }
  }

  /** Resolves once `check` holds for the whole text (scrollback and screen); rejects after `ms`. */
  async waitFor(check: string | ((all: string) => boolean), ms = 30_000): Promise<void> {
    const test = typeof check === "string" ? (all: string) => all.includes(check) : check;
    const until = Date.now() + ms;
    for (;;) {
      const all = this.all();
      if (test(all)) return;
      if (Date.now() > until)
        throw new Error(
          `not on the terminal (${String(check)}); screen:\n${this.screen().join("\n")}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Resolves with the exit status once the command ended; rejects after `ms`. */
  async ended(ms = 40_000): Promise<number> {
    const until = Date.now() + ms;
    for (;;) {
      const status = this.exitStatus();
      if (status !== null) return status;
      if (Date.now() > until)
        throw new Error(
          `still running; processes:\n${this.processes()}\nscreen:\n${this.screen().join("\n")}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The pane's process and its descendants with their states (why a command has not ended). */
  processes(): string {
    const pid = this.tmux(["display-message", "-p", "-t", "t", "#{pane_pid}"]).trim();
    const ps = spawnSync("ps", ["-e", "-o", "pid,ppid,pgid,tpgid,stat,wchan:24,etime,args"], {
      encoding: "utf8",
    });
    const rows = (ps.stdout ?? "").split("\n");
    const tree = new Set([pid]);
    // Parents come before children in ps's order often but not always: repeat until stable.
    for (let grown = true; grown; ) {
      grown = false;
      for (const row of rows.slice(1)) {
        const [child, parent] = row.trim().split(/\s+/);
        if (child && parent && tree.has(parent) && !tree.has(child)) {
          tree.add(child);
          grown = true;
        }
      }
    }
    return [rows[0], ...rows.filter((row) => tree.has(row.trim().split(/\s+/)[0] ?? ""))].join(
      "\n",
    );
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    rmSync(this.exitFile, { force: true });
    spawnSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
  }

  private tmux(
    args: string[],
    tail: string[] = [],
    env?: Record<string, string | undefined>,
  ): string {
    const run = spawnSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args, ...tail], {
      encoding: "utf8",
      ...(env ? { env } : {}),
    });
    if (run.status !== 0 && this.alive)
      throw new Error(`tmux ${args[0]} failed: ${run.stderr.trim()}`);
    return run.stdout;
  }
}

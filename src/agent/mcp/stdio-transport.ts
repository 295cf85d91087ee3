/**
 * The client side of MCP's stdio transport, for a server that runs as the leader of its own
 * process group (docs/mcp.md, "Lifecycle"). The SDK's StdioClientTransport spawns the server in
 * our group and knows only its pid, so a server started through a wrapper (`npx`, `sh -c`, a
 * launcher script) left its grandchildren running when the wrapper was signalled; its spawn
 * takes no `detached`. This one spawns `detached` and otherwise does what the SDK's does, with
 * the SDK's own messages (deserializeMessage, serializeMessage): no JSON-RPC of ours. Its lines
 * are read in bounded memory (line-reader.ts): an answer past the line bound fails its request
 * alone (oversized-answer.ts) instead of dropping the server, and a server that keeps sending
 * unasked lines is cut off (flood-guard.ts, `onflood`). Stopping the group is stop.ts's. It is
 * imported only when a stdio server starts (it loads the SDK). The server runs under the group
 * watchdog (group-watchdog.ts), which SIGKILLs its group when our child dies (kill -9): the
 * watched pipe is fd 3, an extra stdio entry, since stdin is the protocol; the server itself
 * sees only fds 0-2, as before, and keeps the spawned pid (the group's id).
 */
import type { ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SHELL_ADDED, watchedLaunch } from "../tools/group-watchdog.js";
import { checkCommand } from "./command-path.js";
import { FloodGuard } from "./flood-guard.js";
import { BoundedLineReader, type ReadLine } from "./line-reader.js";
import { oversizedAnswer } from "./oversized-answer.js";

interface GroupStdioParams {
  command: string;
  args: string[];
  /** The server's whole environment (nothing is added to it). */
  env: Record<string, string>;
  cwd: string;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server sent too much unasked (flood-guard.ts): what it sends from now on is dropped. */
  onflood?: () => void;
  /** The server's stderr, readable before the spawn (like the SDK's `stderr: "pipe"`). */
  readonly stderr = new PassThrough();
  private process: ChildProcess | null = null;
  private spawnedPid: number | null = null;
  private started = false;
  private readonly lines = new BoundedLineReader();
  private readonly guard = new FloodGuard();
  private flooded = false;

  constructor(private readonly params: GroupStdioParams) {}

  /**
   * The pid of the server as spawned, which is also its process group's id. Kept after the
   * close: the group may outlive its leader (a grandchild), and stop.ts signals it by this id.
   */
  get pgid(): number | null {
    return this.spawnedPid;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("already started");
    this.started = true;
    const { command, args, env, cwd } = this.params;
    // The watchdog's /bin/sh always spawns: a command that cannot be fails here, as a spawn would.
    await checkCommand(command, env, cwd);
    // The server's environment stays exactly the one given: the script's shell adds nothing.
    const added = SHELL_ADDED.filter((name) => !(name in env));
    const launch = watchedLaunch(3, command, args, added);
    return new Promise((resolve, reject) => {
      // node:child_process at the first spawn, not with this module: a start that spawns nothing
      // before its answer does not load it (3-5 ms; docs/acp.md, "Start-up").
      const child = process.getBuiltinModule("node:child_process").spawn(launch.file, launch.args, {
        env,
        cwd,
        // fd 3: the watchdog's pipe, only ever closed (group-watchdog.ts).
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        shell: false,
        // Its own process group, so that the stop reaches whatever it started; the terminal's
        // signals (Ctrl-C) then reach only our group, and a server ends with the child's stdin
        // EOF or its stop, not with the keypress.
        detached: true,
      });
      this.process = child;
      this.spawnedPid = child.pid ?? null;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      this.closeWhenDone(child);
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        if (this.flooded) return;
        for (const line of this.lines.push(chunk)) {
          if (this.flooded) return;
          this.handle(line);
        }
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  /**
   * The close: after the exit, once every copy of its stdout and stderr is closed (grandchildren
   * included), as Node's own `close` would be but for the watchdog's pipe, which the watchdog
   * holds until we close it. It is closed then: the watchdog kills what is left of the group
   * (a process that closed its own pipes, `cmd >/dev/null &`), and the stop finds it gone.
   */
  private closeWhenDone(child: ChildProcess): void {
    let pending = 1 + (child.stdout ? 1 : 0) + (child.stderr ? 1 : 0);
    const one = () => {
      pending -= 1;
      if (pending > 0) return;
      this.process = null;
      child.stdio[3]?.destroy();
      this.onclose?.();
    };
    child.on("exit", one);
    child.stdout?.on("close", one);
    child.stderr?.on("close", one);
    // Never read; its errors (none expected) must not be thrown as unhandled.
    child.stdio[3]?.on("error", () => {});
  }

  /**
   * One line: a message delivered, a line that is not one an error (skipped), an oversized answer
   * replaced by an error answer to its request; every unasked line counted against the guard.
   */
  private handle(line: ReadLine): void {
    if (line.kind === "oversized") {
      const answer = oversizedAnswer(line.head, line.tail, line.bytes);
      if (answer) return this.onmessage?.(answer);
      if (this.unasked(line.bytes)) return;
      this.onerror?.(new Error(`a line of ${line.bytes} bytes, over the bound, was dropped`));
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.text);
    } catch (error) {
      if (this.unasked(Buffer.byteLength(line.text))) return;
      this.onerror?.(error as Error);
      return;
    }
    if (!isAnswer(message) && this.unasked(Buffer.byteLength(line.text))) return;
    this.onmessage?.(message);
  }

  /** Counts an unasked line; true (and the server cut off) once it sent too much. */
  private unasked(bytes: number): boolean {
    if (!this.guard.unasked(bytes)) return false;
    if (!this.flooded) {
      this.flooded = true;
      this.lines.clear();
      // Read on and dropped until its stop (a paused pipe would hide the server's exit).
      this.onflood?.();
    }
    return true;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded)
      return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Ends the server's stdin (a well-behaved server exits at EOF). Signals are stop.ts's: the SDK
   * calls this on its own (a failed connect), and the stop's schedule must stay in one place.
   */
  async close(): Promise<void> {
    try {
      this.process?.stdin?.end();
    } catch {}
    this.lines.clear();
  }
}

/** An answer to a request of ours: an id with a result or an error, no method. */
function isAnswer(message: JSONRPCMessage): boolean {
  return "id" in message && !("method" in message) && ("result" in message || "error" in message);
}

/**
 * Where the file and shell tools do their I/O when the frontend offers its own: an ACP editor's
 * `fs/read_text_file`, `fs/write_text_file` and `terminal/*` (docs/acp.md, "Client file system
 * and terminals"). The host only performs I/O on a path or command that our tools have already
 * confined, planned and had approved; bounds, confinement and approvals stay ours whichever side
 * does the I/O. Every member is optional: a missing one means our own tool does that part itself.
 * Any rejection of a member becomes a tool error whose message names only the model's path
 * (host-files.ts, host-shell.ts): what the host says about the failure is never passed on.
 */
export interface ToolHost {
  /**
   * The file's text as the editor sees it (unsaved buffers included); `path` is absolute and
   * confined. `range` asks for `limit` lines from `line` (1-based); null asks for the whole file.
   */
  readTextFile?(path: string, range: LineRange | null, signal: AbortSignal): Promise<string>;
  /** Writes the whole text of a file; `path` is absolute, confined, its folder exists. */
  writeTextFile?(path: string, content: string, signal: AbortSignal): Promise<void>;
  /**
   * Starts one approved command in a terminal of the editor's. Never cancelled: a terminal the
   * editor made after an interrupt must still be killed and released, which needs its id.
   */
  createTerminal?(command: HostCommand): Promise<HostTerminal>;
  /**
   * The call `itemId` starts running now: approved when it needed an approval, planned, about
   * to execute. No I/O of the tool's: a frontend that shows a call's progress (ACP's
   * `in_progress`, which our turn events have no event for) learns it here.
   */
  callStarted?(itemId: string): Promise<void>;
}

export interface LineRange {
  line: number;
  limit: number;
}

export interface HostCommand {
  /** The call's item id (its `tool_call` event's), so the editor can show the terminal with it. */
  itemId: string | null;
  /** The program (our shell, absolute) and its arguments (`-c`, the command line). */
  program: string;
  args: string[];
  /** Absolute, confined: the workspace. */
  cwd: string;
  /**
   * The command's environment: ours (provider credentials removed, shell-env.ts), with every
   * removed credential set to "" so that the editor's own value cannot reach the command.
   */
  env: Record<string, string>;
  /** The most output the host keeps (the tail of it, when there is more). */
  outputByteLimit: number;
}

export interface HostExit {
  exitCode: number | null;
  signal: string | null;
}

export interface HostTerminalOutput {
  output: string;
  /** The host dropped the start of the output to stay within `outputByteLimit`. */
  truncated: boolean;
  /** Set once the command has ended. */
  exit: HostExit | null;
}

/** One command running in the host's terminal; `release` must always be called once. */
export interface HostTerminal {
  readonly id: string;
  output(): Promise<HostTerminalOutput>;
  /** Settles when the command ends; `signal` stops waiting (the command goes on). */
  waitForExit(signal: AbortSignal): Promise<HostExit>;
  /** Kills the command; the terminal stays until `release`. */
  kill(): Promise<void>;
  /** Kills what still runs and frees the terminal; its output stays on screen. */
  release(): Promise<void>;
}

/**
 * Where a turn gets its host, if any: asked once per turn, after admission (the session's ID
 * is then known). `mc-agent acp` passes one per ACP session (src/acp/); `mc-agent stdio` none.
 */
export type ToolHostSource = (turn: { sessionId: string; turnId: string }) => ToolHost | undefined;

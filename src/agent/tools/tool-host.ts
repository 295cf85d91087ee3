/**
 * Where the file and shell tools do their I/O when the frontend offers its own: an ACP editor's
 * `fs/read_text_file`, `fs/write_text_file` and `terminal/*` (docs/acp.md). The host only
 * performs I/O on a path or command that our tools have already confined, planned and had
 * approved; bounds, confinement and approvals stay ours whichever side does the I/O. Every
 * member is optional: a missing one means our own tool does that part itself.
 */
export interface ToolHost {
  /** The file's text as the editor sees it (unsaved buffers included); `path` is absolute. */
  readTextFile?(path: string, signal: AbortSignal): Promise<string>;
  /** Writes the whole text of a file; `path` is absolute and already confined. */
  writeTextFile?(path: string, content: string, signal: AbortSignal): Promise<void>;
  /** Runs one approved shell command in the editor's terminal, in `cwd`. */
  runCommand?(command: HostCommand, signal: AbortSignal): Promise<HostCommandResult>;
}

export interface HostCommand {
  command: string;
  /** Absolute, confined. */
  cwd: string;
  /** Provider credentials already removed (shell-env.ts). */
  env: NodeJS.ProcessEnv;
  /** The most output the host keeps (our `tool_output_bytes`). */
  outputByteLimit: number;
  timeoutMs: number;
}

export interface HostCommandResult {
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
}

/**
 * Where a turn gets its host, if any: asked once per turn, after admission (the session's ID
 * is then known). `mc-agent acp` passes one per ACP session (src/acp/); `mc-agent stdio` none.
 */
export type ToolHostSource = (turn: { sessionId: string; turnId: string }) => ToolHost | undefined;

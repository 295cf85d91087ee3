/**
 * The interface of the six tools (one file per tool beside this one). A tool call is planned
 * first (input validated, paths confined, an edit's new content and diff computed) so that an
 * approval can show exactly what will happen, then executed.
 */

import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import type { Sandbox } from "../sandbox/index.js";
import type { ToolHost } from "./tool-host.js";

export type ToolName = "read_file" | "list_dir" | "search" | "write_file" | "edit_file" | "shell";

/**
 * What a permission level decides about a tool: `read`s always run; `mcp` is an MCP server's
 * tool (permissions.ts, docs/mcp.md "Approvals").
 */
export type ToolKind = "read" | "edit" | "command" | "mcp";

/**
 * How a tool opens a workspace entry for reading, before the descriptor is checked: a handle, or
 * null for an entry that is not a regular file. Errors are the file system's (regular-file.ts).
 */
export type FileOpener = (absolute: string) => Promise<FileHandle | null>;

export interface ToolContext {
  /** The canonical workspace (the child's realpath cwd). */
  workspace: string;
  /** Aborted by `turn.interrupt`, shutdown or EOF. */
  signal: AbortSignal;
  /** The environment for `shell`, provider credentials already removed. */
  env: NodeJS.ProcessEnv;
  /**
   * Every credential variable name removed from `env` (shell-env.ts `credentialVariableNames`):
   * a command in the client's terminal gets each set to "" (host-shell.ts).
   */
  credentialVariables: readonly string[];
  /** `turn.extensions.turn` bounds. */
  limits: { tool_output_bytes: number; tool_stream_bytes: number; shell_timeout_ms: number };
  /** How read_file opens a workspace file (default: checked first, never blocking; regular-file.ts). */
  readFileOpener?: FileOpener;
  /** Under `sandboxed`: the OS sandbox `shell` runs its commands in (src/agent/sandbox/). */
  sandbox?: Sandbox;
  /** The folders of the turn's user skills, which read_file also reads (docs/skills.md). */
  skillFolders?: readonly { name: string; folder: string }[];
  /** The frontend's own file and terminal I/O, when it offers it (tool-host.ts, docs/acp.md). */
  host?: ToolHost;
  /**
   * A subfolder's AGENTS.md for a file read_file read (workspace-relative), to append to its
   * result once per session (src/agent/instructions/folder-instructions.ts); "" when none.
   */
  folderInstructions?: (relative: string) => Promise<string>;
  /** The call's item id (its `tool_call` event's) while it executes; null or absent at planning. */
  itemId?: string | null;
  /** Streams shell output to the client; awaiting it is back-pressure. */
  onOutput(stream: "stdout" | "stderr", text: string): Promise<void>;
}

export interface ToolResult {
  status: "completed" | "failed" | "interrupted";
  /** What the model is shown (bounded by `tool_output_bytes` for shell). */
  output: string;
  /** A short human line for `tool_done` ("Wrote 12 lines", "exit 0"). */
  summary: string;
  exit_code: number | null;
  /** A unified diff for edits, else null. */
  diff: string | null;
}

/** What an approval shows; null when the call needs none under any permission. */
export interface ApprovalRequest {
  kind: "edit" | "command";
  command: string | null;
  /** Workspace-relative path of an edit. */
  path: string | null;
  diff: string | null;
  /** An MCP tool's call: its namespaced name, what its approval rule names. */
  mcp?: string;
}

export interface PlannedCall {
  /** "Read src/app.ts", "Run npm test". */
  title: string;
  approval: ApprovalRequest | null;
  /**
   * A `shell` call of a turn with a sandbox: whether it runs inside it (then it asks nothing).
   * Undefined for every other call.
   */
  sandboxed?: boolean;
  execute(ctx: ToolContext): Promise<ToolResult>;
}

/** A tool error the model is told about (bad input, outside the workspace, no match, ...). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

export interface Tool<I = unknown> {
  /** A built-in's ToolName, `mcp_search`, or an MCP tool's `mcp__<server>__<tool>`. */
  name: ToolName | (string & {});
  kind: ToolKind;
  description: string;
  input: z.ZodType<I>;
  /**
   * Validates (the raw arguments the model sent, parsed JSON) and prepares; throws `ToolError`
   * for anything the model must fix. Validation is the tool's own, so no caller can skip it.
   */
  plan(input: unknown, ctx: ToolContext): Promise<PlannedCall>;
}

/**
 * The model's arguments checked against a tool's schema; a mismatch is a `ToolError`. A
 * top-level `null` counts as absent: models trained on strict function calling send
 * `"offset": null` for an optional field they do not use.
 */
export function parseToolInput<I>(schema: z.ZodType<I>, raw: unknown): I {
  const parsed = schema.safeParse(withoutNulls(raw));
  if (parsed.success) return parsed.data;
  throw new ToolError(`invalid input: ${z.prettifyError(parsed.error).replaceAll("\n", "; ")}`);
}

function withoutNulls(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null));
}

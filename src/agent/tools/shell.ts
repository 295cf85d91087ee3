/**
 * shell: one command through `bash -c` (`sh` where there is no bash) in the workspace, in its own
 * process group (shell-process.ts), with the environment the engine gives (provider credentials
 * already removed). Output streams to the client up to `tool_stream_bytes`; the model sees at
 * most `tool_output_bytes`: head, omission line, tail, and a closing status line.
 * Exit 0 is `completed`; a non-zero exit, a signal or the timeout is `failed`; an abort is
 * `interrupted`. A `timeout_ms` above `shell_timeout_ms` is a tool error (the schema says so).
 * When the frontend offers terminals (an ACP editor), the command runs in one of its terminals
 * instead, with the same environment, timeout and bounds (host-shell.ts).
 */
import { z } from "zod";
import { TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import { clipChars } from "../../protocol/text-cut.js";
import { DENIAL_NOTE_BYTES, DenialScan } from "../sandbox/denials.js";
import type { Sandbox } from "../sandbox/index.js";
import { SandboxRefusal } from "../sandbox/refusal.js";
import { runInHostTerminal, type TerminalHost } from "./host-shell.js";
import { HeadTailCapture, StreamBudget } from "./shell-output.js";
import { runShell, type ShellEnd } from "./shell-process.js";
import {
  type PlannedCall,
  parseToolInput,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "./tool.js";

const DEFAULT_SHELL_TIMEOUT_MS = 120_000;
/** How much of the command a title shows. */
const TITLE_CHARS = 80;

const ShellInput = z.strictObject({
  command: z.string().min(1).describe("The command line, run by bash -c in the workspace."),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(TURN_EXTENSION.shell_timeout_ms)
    .optional()
    .describe(
      `Milliseconds before the command is killed (default ${DEFAULT_SHELL_TIMEOUT_MS}, ` +
        `at most ${TURN_EXTENSION.shell_timeout_ms}).`,
    ),
});

const DESCRIPTION =
  "Run a shell command (bash -c) in the workspace, stdin empty. Returns its output (stdout " +
  "and stderr interleaved; long output keeps its head and tail) and exit code. Every process " +
  "it starts is killed when it ends or times out, so do not start servers in the background.";

export const shellTool: Tool<z.infer<typeof ShellInput>> = {
  name: "shell",
  kind: "command",
  description: DESCRIPTION,
  input: ShellInput,
  async plan(raw, ctx) {
    const input = parseToolInput(ShellInput, raw);
    return planned(input, timeoutOf(input, ctx), null);
  },
};

const SandboxedShellInput = ShellInput.extend({
  sandbox: z
    .boolean()
    .optional()
    .describe(
      "false runs this one command outside the sandbox, after the user approves it; " +
        "use it only when the sandbox blocked something the task needs.",
    ),
});

/**
 * `shell` under `sandboxed` (docs/tools.md, "The sandbox"): the command runs inside the OS
 * sandbox without an approval; `"sandbox": false` asks to run it outside, which the user
 * approves first as under `ask`.
 */
export const sandboxedShellTool: Tool<z.infer<typeof SandboxedShellInput>> = {
  name: "shell",
  kind: "command",
  description:
    `${DESCRIPTION} It runs in a sandbox: only the workspace (not .git/ or .mc/) and a private ` +
    "/tmp are writable, the rest of the filesystem is read-only, credentials are hidden, and " +
    "there is no network.",
  input: SandboxedShellInput,
  async plan(raw, ctx) {
    const input = parseToolInput(SandboxedShellInput, raw);
    const timeoutMs = timeoutOf(input, ctx);
    if (input.sandbox === false) return planned(input, timeoutMs, null, "outside the sandbox");
    // Never unsandboxed silently: a turn without its sandbox is a tool error, nothing run.
    if (!ctx.sandbox) throw new ToolError("the sandbox is not available; nothing was run");
    return planned(input, timeoutMs, ctx.sandbox);
  },
};

function timeoutOf(input: { timeout_ms?: number | undefined }, ctx: ToolContext): number {
  const timeoutMs = input.timeout_ms ?? DEFAULT_SHELL_TIMEOUT_MS;
  if (timeoutMs > ctx.limits.shell_timeout_ms)
    throw new ToolError(`timeout_ms must be at most ${ctx.limits.shell_timeout_ms}`);
  return timeoutMs;
}

/** The call: asks first unless it runs in `sandbox` (`escalated` names an unsandboxed run). */
function planned(
  input: { command: string },
  timeoutMs: number,
  sandbox: Sandbox | null,
  escalated?: string,
): PlannedCall {
  return {
    title: `Run ${escalated ? `${escalated}: ` : ""}${shorten(input.command)}`,
    approval: { kind: "command", command: input.command, path: null, diff: null },
    ...(sandbox || escalated ? { sandboxed: sandbox !== null } : {}),
    execute: (run) => execute(input.command, timeoutMs, run, sandbox),
  };
}

async function execute(
  command: string,
  timeoutMs: number,
  ctx: ToolContext,
  sandbox: Sandbox | null,
): Promise<ToolResult> {
  // A sandboxed command keeps room for the line on what the sandbox forbids: the model's
  // output stays within tool_output_bytes.
  const room = sandbox ? DENIAL_NOTE_BYTES : 0;
  const capture = new HeadTailCapture(ctx.limits.tool_output_bytes - room);
  const budget = new StreamBudget(ctx.limits.tool_stream_bytes);
  const denials = sandbox ? new DenialScan(sandbox.kind, sandbox.network) : null;
  let end: ShellEnd;
  const host = ctx.host?.createTerminal ? (ctx.host as TerminalHost) : null;
  try {
    // The editor's terminal when it offers one (host-shell.ts), with the same bounds; never for
    // a sandboxed command, which must run inside our own sandbox.
    if (host && !sandbox)
      end = await runInHostTerminal(host, command, timeoutMs, ctx, capture, budget);
    else end = await runLocal(command, timeoutMs, ctx, capture, budget, sandbox, denials);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    // The sandbox would not start it (a bound on what it keeps read-only): its words say why.
    if (error instanceof SandboxRefusal) throw new ToolError(error.message);
    throw new ToolError("the shell could not be started");
  }
  const outcome = describe(end, timeoutMs);
  const denied = denials?.note();
  return {
    status: outcome.status,
    output: capture.render(denied ? `${outcome.line}\n${denied}` : outcome.line),
    summary: outcome.summary,
    exit_code: end.kind === "exited" ? end.code : null,
    diff: null,
  };
}

function runLocal(
  command: string,
  timeoutMs: number,
  ctx: ToolContext,
  capture: HeadTailCapture,
  budget: StreamBudget,
  sandbox: Sandbox | null,
  denials: DenialScan | null,
): Promise<ShellEnd> {
  return runShell({
    command,
    cwd: ctx.workspace,
    env: ctx.env,
    timeoutMs,
    signal: ctx.signal,
    ...(sandbox ? { wrap: sandbox.launch } : {}),
    async onChunk(stream, _bytes, text) {
      // The decoded text, as the model will read it: its bound counts the U+FFFD replacements.
      capture.push(text);
      denials?.push(text);
      const streamed = budget.take(text);
      if (streamed !== "") await ctx.onOutput(stream, streamed);
    },
  });
}

function describe(end: ShellEnd, timeoutMs: number) {
  switch (end.kind) {
    case "timed_out":
      return {
        status: "failed" as const,
        line: `[timed out after ${timeoutMs} ms; the command's processes were killed]`,
        summary: `timed out after ${timeoutMs} ms`,
      };
    case "interrupted":
      return {
        status: "interrupted" as const,
        line: "[interrupted; the command's processes were killed]",
        summary: "interrupted",
      };
    case "exited":
      if (end.code !== null) {
        return {
          status: end.code === 0 ? ("completed" as const) : ("failed" as const),
          line: `[exit code ${end.code}]`,
          summary: `exit ${end.code}`,
        };
      }
      return {
        status: "failed" as const,
        line: `[killed by signal ${end.signal ?? "unknown"}]`,
        summary: `killed by ${end.signal ?? "a signal"}`,
      };
  }
}

/** The command's first line, cut to TITLE_CHARS characters. */
function shorten(command: string): string {
  const first = command.trim().split("\n")[0] ?? "";
  const cut = clipChars(first, TITLE_CHARS);
  return cut !== command.trim() && !cut.endsWith("…") ? `${cut} …` : cut;
}

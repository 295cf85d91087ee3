/**
 * The ToolHost (src/agent/tools/tool-host.ts) an ACP client's own file system and terminals make:
 * `fs/read_text_file`, `fs/write_text_file` and `terminal/*`, each used only when the client's
 * `clientCapabilities` offer it (docs/acp.md, "Client file system and terminals"). This file only
 * carries the calls: the tools confine, plan, bound and ask for approval before any of them, and
 * turn every failure here into a tool error that names no path. A terminal's id is reported
 * through `onTerminal` as soon as it exists, so that the session's update mapping can put
 * `{"type": "terminal", "terminalId"}` into the command's tool call and the editor shows it.
 */
import type {
  AgentContext,
  ClientCapabilities,
  CreateTerminalResponse,
  ReadTextFileResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk";
import type { HostCommand, HostExit, HostTerminal, ToolHost } from "../agent/tools/tool-host.js";
import type { ClientToolHostFactory } from "./sessions.js";

interface ClientToolsOptions {
  /** The connection's context for calling the client (a handler's `client`). */
  client: Pick<AgentContext, "request">;
  /** What the client said it offers in `initialize`. */
  capabilities: ClientCapabilities | null | undefined;
  /** The ACP session the calls belong to. */
  sessionId: string;
  /** A command's terminal exists: `itemId` is its tool call's (tool-host.ts HostCommand). */
  onTerminal?: (itemId: string | null, terminalId: string) => void | Promise<void>;
}

/*
 * Answers are checked for the fields used: the client is another program, and a missing field
 * must fail the call (a tool error), not pass on as `undefined`.
 */

/** `clientToolHost` in the shape the sessions ask for it (sessions.ts ClientToolHostFactory). */
export const clientToolHostFactory: ClientToolHostFactory = (
  client,
  capabilities,
  sessionId,
  onTerminal,
) => clientToolHost({ client, capabilities, sessionId, onTerminal });

/** The host for one session, or undefined when the client offers none of it. */
function clientToolHost(options: ClientToolsOptions): ToolHost | undefined {
  const { client, sessionId } = options;
  const offered = options.capabilities ?? {};
  const host: ToolHost = {};
  if (offered.fs?.readTextFile === true) {
    host.readTextFile = async (path, range, signal) => {
      const params = range
        ? { sessionId, path, line: range.line, limit: range.limit }
        : { sessionId, path };
      const answer = await client.request<ReadTextFileResponse>("fs/read_text_file", params, {
        cancellationSignal: signal,
      });
      if (typeof answer?.content !== "string") throw new Error("fs/read_text_file: no content");
      return answer.content;
    };
  }
  if (offered.fs?.writeTextFile === true) {
    host.writeTextFile = async (path, content, signal) => {
      await client.request(
        "fs/write_text_file",
        { sessionId, path, content },
        { cancellationSignal: signal },
      );
    };
  }
  if (offered.terminal === true)
    host.createTerminal = (command) => createTerminal(options, command);
  return Object.keys(host).length > 0 ? host : undefined;
}

async function createTerminal(
  options: ClientToolsOptions,
  command: HostCommand,
): Promise<HostTerminal> {
  const { client, sessionId } = options;
  const created = await client.request<CreateTerminalResponse>("terminal/create", {
    sessionId,
    command: command.program,
    args: command.args,
    cwd: command.cwd,
    env: Object.entries(command.env).map(([name, value]) => ({ name, value })),
    outputByteLimit: command.outputByteLimit,
  });
  const terminalId = created?.terminalId;
  if (typeof terminalId !== "string" || terminalId === "")
    throw new Error("terminal/create: no terminal id");
  const ids = { sessionId, terminalId };
  let released: Promise<void> | null = null;
  const terminal: HostTerminal = {
    id: terminalId,
    async output() {
      const answer = await client.request<TerminalOutputResponse>("terminal/output", ids);
      if (typeof answer?.output !== "string") throw new Error("terminal/output: no output");
      const status = answer.exitStatus;
      return {
        output: answer.output,
        truncated: answer.truncated === true,
        exit: status ? exitOf(status) : null,
      };
    },
    async waitForExit(signal) {
      const answer = await client.request<WaitForTerminalExitResponse>(
        "terminal/wait_for_exit",
        ids,
        {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        },
      );
      return exitOf(answer ?? {});
    },
    async kill() {
      await client.request("terminal/kill", ids);
    },
    release() {
      released ??= client.request("terminal/release", ids).then(() => {});
      return released;
    },
  };
  try {
    await options.onTerminal?.(command.itemId, terminalId);
  } catch {
    // Showing the terminal is the mapping's affair; the command runs either way.
  }
  return terminal;
}

function exitOf(status: TerminalExitStatus): HostExit {
  return {
    exitCode: typeof status.exitCode === "number" ? status.exitCode : null,
    signal: typeof status.signal === "string" ? status.signal : null,
  };
}

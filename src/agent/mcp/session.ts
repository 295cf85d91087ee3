import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SERVER_INFO } from "../../protocol/constants.js";
import type { McpError } from "../../protocol/schemas/mcp.js";
import type { McpHttpSettings, McpStdioSettings } from "../../store/mcp-settings.js";
import {
  type McpServerPlan,
  resolveValues,
  serverCwd,
  serverEnvironment,
  VariableMissing,
} from "./plan.js";
import { pipeStderr } from "./stderr.js";
import type { GroupStdioTransport } from "./stdio-transport.js";
import { stopProcess } from "./stop.js";
import type { McpToolInfo } from "./types.js";

/** At most this many tools per server (more is `tool_limit`), read in at most this many pages. */
const MCP_SERVER_TOOLS = 1024;
const TOOL_PAGES = 64;

/** A start that failed, with its safe code. */
export class StartFailure extends Error {
  override readonly name = "StartFailure";
  constructor(readonly code: McpError) {
    super(`MCP server start failed: ${code}`);
  }
}

/** One live connection to a server: the SDK client, the tools it listed, and how to end it. */
/** What a session is opened in: the child's environment, its workspace and its debug log. */
export interface SessionHost {
  /** The child's environment (its `"$NAME"` values come from here). */
  env: NodeJS.ProcessEnv;
  /** The workspace: a relative `cwd` is relative to it. */
  workspace: string;
  /** The child's log at debug, or null when that level is off. */
  debug: ((line: string) => void) | null;
}

export interface OpenedSession {
  client: Client;
  tools: McpToolInfo[];
  /** Reads the whole tool list again within `timeoutMs`; throws (StartFailure `tool_limit`). */
  listTools(timeoutMs: number, signal: AbortSignal): Promise<McpToolInfo[]>;
  /** Ends the connection (and a stdio server's process) within the cleanup bound. */
  stop(): Promise<void>;
}

/** What the connection hears of a session: its end, the server's list_changed, its flood. */
interface SessionHooks {
  lost(session: OpenedSession): void;
  toolsChanged(): void;
  /** A stdio server sent too much unasked (flood-guard.ts); `session` null during the start. */
  flooded(session: OpenedSession | null): void;
}

/**
 * Starts a server with the official SDK (its stdio or streamable-HTTP client transport), does
 * the handshake and reads its tool list, all within `startup_timeout_ms`. The SDK is imported
 * here, on first use, so that a child without MCP servers never loads it.
 */
export async function openSession(
  plan: McpServerPlan,
  host: SessionHost,
  hooks: SessionHooks,
  closing: AbortSignal,
): Promise<OpenedSession> {
  const deadline = Date.now() + plan.startupTimeoutMs;
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { ToolListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const transport = await createTransport(plan, host);
  let flooded = false;
  if ("onflood" in transport)
    transport.onflood = () => {
      flooded = true;
      hooks.flooded(opened);
    };
  const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version });
  let opened: OpenedSession | null = null;
  let closed!: () => void;
  const exited = new Promise<void>((resolve) => {
    closed = resolve;
  });
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= endSession(plan, client, transport, exited);
    return stopping;
  };
  client.onclose = () => {
    closed();
    if (opened) hooks.lost(opened);
  };
  // Set before the handshake: a change during the start is counted, and re-listed once ready.
  // Our own handler, not the SDK's `listChanged` option: that one reads only the first page,
  // unbounded, and only when the server declared the capability (connection.ts bounds it).
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.toolsChanged());
  // Kept quiet: an error of the transport shows as a failed request or a close.
  client.onerror = (error) => host.debug?.(`mcp ${plan.name}: ${error.message}`);
  // The child's shutdown ends a start in progress as well: its process is stopped below.
  const signal = AbortSignal.any([
    AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    closing,
  ]);
  try {
    await client.connect(transport, { signal, timeout: Math.max(1, deadline - Date.now()) });
    const tools = await listTools(plan.name, client, deadline, signal);
    const again = (timeoutMs: number, stopped: AbortSignal) =>
      listTools(
        plan.name,
        client,
        Date.now() + timeoutMs,
        AbortSignal.any([AbortSignal.timeout(timeoutMs), stopped]),
      );
    opened = { client, tools, listTools: again, stop };
    return opened;
  } catch (error) {
    await stop();
    throw flooded ? new StartFailure("flooding") : startFailure(error, signal);
  }
}

async function createTransport(
  plan: McpServerPlan,
  host: SessionHost,
): Promise<GroupStdioTransport | StreamableHTTPClientTransport> {
  if (plan.transport === "stdio") {
    const settings = plan.settings as McpStdioSettings;
    const env = serverEnvironment(resolved(settings.env, host.env), host.env);
    const { GroupStdioTransport } = await import("./stdio-transport.js");
    const transport = new GroupStdioTransport({
      command: settings.command,
      args: settings.args ?? [],
      env,
      cwd: serverCwd(settings.cwd, host.workspace),
    });
    pipeStderr(plan.name, transport.stderr, host.debug);
    return transport;
  }
  const settings = plan.settings as McpHttpSettings;
  const headers = resolved(settings.headers, host.env);
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  return new StreamableHTTPClientTransport(new URL(settings.url), {
    requestInit: { headers, redirect: "error" },
  });
}

function resolved(values: Record<string, string> | undefined, env: NodeJS.ProcessEnv) {
  try {
    return resolveValues(values, env);
  } catch (error) {
    if (error instanceof VariableMissing) throw new StartFailure("variable_missing");
    throw error;
  }
}

async function listTools(
  name: string,
  client: Client,
  deadline: number,
  signal: AbortSignal,
): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < TOOL_PAGES; page += 1) {
    const timeout = Math.max(1, deadline - Date.now());
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
      signal,
      timeout,
    });
    for (const tool of listed.tools) {
      tools.push({
        server: name,
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
      });
    }
    if (tools.length > MCP_SERVER_TOOLS) throw new StartFailure("tool_limit");
    cursor = listed.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new StartFailure("tool_limit");
}

function startFailure(error: unknown, signal: AbortSignal): StartFailure {
  if (error instanceof StartFailure) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code) && code !== "ECONNREFUSED")
    return new StartFailure("spawn_failed");
  if (signal.aborted || code === -32001) return new StartFailure("startup_timeout");
  return new StartFailure("connect_failed");
}

/**
 * Closes the session; for stdio, stdin first, then SIGTERM, then SIGKILL to the server's group
 * (stop.ts). The group's id is kept by our transport from the spawn: a failed or aborted connect
 * closes the client by itself, and the process must still be stopped then.
 */
async function endSession(
  plan: McpServerPlan,
  client: Client,
  transport: GroupStdioTransport | StreamableHTTPClientTransport,
  exited: Promise<void>,
): Promise<void> {
  if (plan.transport === "stdio") {
    const pgid = (transport as GroupStdioTransport).pgid;
    return stopProcess(pgid, exited, () => void client.close().catch(() => {}));
  }
  const http = transport as StreamableHTTPClientTransport;
  // Best effort: the server forgets the session (DELETE), bounded like the rest of the close.
  await Promise.race([
    http.terminateSession().catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, 500).unref()),
  ]);
  await client.close().catch(() => {});
}

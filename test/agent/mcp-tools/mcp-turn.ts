/**
 * One turn of the real engine in this process, its model a loopback Responses server streaming
 * the real wire format, its MCP tools from real MCP servers over stdio through the SDK's client
 * (`sdkSource`, the same client calls the server manager makes). The child's own wiring of the
 * manager is tested black-box elsewhere; this is the model's side of MCP tools.
 */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ApprovalBroker } from "../../../src/agent/approvals.js";
import { runTurn } from "../../../src/agent/engine.js";
import type { McpToolInfo, McpToolSource } from "../../../src/agent/mcp-tools/source.js";
import { createModelProvider } from "../../../src/agent/providers/index.js";
import { DEFAULT_BOUNDS } from "../../../src/agent/providers/provider.js";
import { RuleBook, SessionRules } from "../../../src/agent/rules/rule-book.js";
import { TurnEvents } from "../../../src/agent/turn-events.js";
import type { Permissions, TurnEventBody } from "../../../src/protocol/schemas/turns.js";
import { TURN_EXTENSION } from "../../../src/protocol/schemas/turns.js";
import {
  bodies,
  type ResponsesScript,
  responsesReply,
  startScriptedServer,
} from "../../fixtures/responses-server.js";

export interface StdioServerSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export interface SdkSource extends McpToolSource {
  /** Every JSON-RPC message the client wrote to each server, by server name. */
  sent: Map<string, JSONRPCMessage[]>;
  /** The server's process id (to kill it mid-call). */
  pid(server: string): number | null;
  close(): Promise<void>;
}

/** Real SDK clients over stdio; a failure is rejected with a `code` as the manager's is. */
export async function sdkSource(servers: Record<string, StdioServerSpec>): Promise<SdkSource> {
  const clients = new Map<string, { client: Client; transport: StdioClientTransport }>();
  const sent = new Map<string, JSONRPCMessage[]>();
  for (const [name, spec] of Object.entries(servers)) {
    const transport = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...spec.env },
      stderr: "ignore",
    });
    const log: JSONRPCMessage[] = [];
    sent.set(name, log);
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage) => {
      log.push(message);
      return send(message);
    };
    const client = new Client({ name: "mc-agent-test", version: "1.0.0" });
    await client.connect(transport);
    clients.set(name, { client, transport });
  }
  return {
    sent,
    pid: (server) => clients.get(server)?.transport.pid ?? null,
    async tools() {
      const all: McpToolInfo[] = [];
      for (const [server, { client }] of clients) {
        // As the manager's: never throws; a dead server has no tools (the turn asks every step).
        const listed = await client.listTools().catch(() => ({ tools: [] }));
        for (const tool of listed.tools)
          all.push({ server, ...tool, inputSchema: tool.inputSchema as Record<string, unknown> });
      }
      return all;
    },
    async call(server, tool, args, options) {
      const entry = clients.get(server);
      if (!entry) throw Object.assign(new Error("no server"), { code: "unknown_server" });
      try {
        return (await entry.client.callTool({ name: tool, arguments: args }, undefined, {
          signal: options.signal,
          timeout: options.timeoutMs ?? 60_000,
        })) as Awaited<ReturnType<McpToolSource["call"]>>;
      } catch {
        const code = options.signal.aborted
          ? "cancelled"
          : entry.transport.pid === null
            ? "server_exited"
            : "call_failed";
        throw Object.assign(new Error("call failed"), { code });
      }
    },
    async close() {
      for (const { client } of clients.values()) await client.close();
    },
  };
}

export interface TurnRun {
  events: TurnEventBody[];
  result: Awaited<ReturnType<typeof runTurn>>;
  /** The bodies the model was sent, one per model call. */
  requests: Record<string, unknown>[];
}

export interface TurnOptions {
  source: McpToolSource;
  permissions: Permissions;
  replies: ResponsesScript[];
  /** Sees each event; may decide an approval or interrupt the turn. */
  onEvent?: (event: TurnEventBody, control: TurnControl) => void;
  home?: string;
  workspace?: string;
}

export interface TurnControl {
  approvals: ApprovalBroker;
  interrupt(): void;
}

export async function mcpTurn(options: TurnOptions): Promise<TurnRun> {
  const model = await startScriptedServer();
  model.script(...options.replies.map(responsesReply));
  const own = !options.home;
  const home = options.home ?? (await mkdtemp(join(tmpdir(), "mc-mcp-home-")));
  const workspace =
    options.workspace ?? (await realpath(await mkdtemp(join(tmpdir(), "mc-mcp-ws-"))));
  const events: TurnEventBody[] = [];
  const abort = new AbortController();
  const approvals = new ApprovalBroker("t-1");
  abort.signal.addEventListener("abort", () => approvals.cancelAll(), { once: true });
  const control: TurnControl = { approvals, interrupt: () => abort.abort() };
  try {
    const result = await runTurn({
      turnId: "t-1",
      sessionId: "s-1",
      createdSession: true,
      input: "Use the MCP tools.",
      permissions: options.permissions,
      model: { id: "openai/gpt-test", name: "gpt-test", effort: null, contextWindow: null },
      provider: createModelProvider({
        provider: {
          id: "openai",
          type: "openai",
          base_url: model.url,
          api_key_env: null,
          token_url: null,
          fingerprint: "test",
        },
        credential: { kind: "api_key", key: "sk-test" },
        bounds: DEFAULT_BOUNDS,
        home,
        env: {},
      }),
      system: () => "You are a test.",
      history: [],
      events: new TurnEvents(
        async (params) => {
          const event = params.event as TurnEventBody;
          events.push(event);
          options.onEvent?.(event, control);
        },
        "r-1",
        "t-1",
      ),
      approvals,
      rules: { book: new RuleBook(home, workspace, () => {}), session: new SessionRules() },
      record: async () => {},
      toolContext: { workspace, env: {}, credentialVariables: [], limits: TURN_EXTENSION },
      mcp: options.source,
      signal: abort.signal,
    });
    return { events, result, requests: bodies(model) };
  } finally {
    await model.close();
    if (own) await rm(home, { recursive: true, force: true });
  }
}

/** The names of the tools a model request offered. */
export function offeredNames(request: Record<string, unknown>): string[] {
  return ((request.tools as { name: string }[] | undefined) ?? []).map((tool) => tool.name);
}

/** The output the model was given for a call, from the request after it. */
export function toolOutput(request: Record<string, unknown>, callId: string): string | undefined {
  const input = request.input as { type: string; call_id?: string; output?: string }[];
  return input.find((item) => item.type === "function_call_output" && item.call_id === callId)
    ?.output;
}

export function fixtureServer(count = 100, env: Record<string, string> = {}): StdioServerSpec {
  return {
    command: process.execPath,
    args: [join(import.meta.dirname, "../../fixtures/mcp-generated-server.js"), String(count)],
    env,
  };
}

export function everythingServer(): StdioServerSpec {
  return {
    command: process.execPath,
    args: [require_resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
  };
}

export function memoryServer(file: string): StdioServerSpec {
  return {
    command: process.execPath,
    args: [require_resolve("@modelcontextprotocol/server-memory/dist/index.js")],
    env: { MEMORY_FILE_PATH: file },
  };
}

function require_resolve(specifier: string): string {
  return join(import.meta.dirname, "../../../../node_modules", specifier);
}

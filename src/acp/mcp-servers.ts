/**
 * A session's `mcpServers` from the editor, checked as our `mcp_servers` settings.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { MCP_SERVER_NAME_PATTERN } from "../protocol/schemas/mcp.js";
import {
  MAX_MCP_SERVERS,
  McpServerSettings,
  type McpServersSettings,
} from "../store/mcp-settings.js";
import { acpError } from "./errors.js";

/** `"$NAME"` is config.json's reference to our environment; from ACP a value is only itself. */
const VARIABLE = /^\$[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A session's `mcpServers` (session/new, load, resume) as our `mcp_servers` settings, checked by
 * the same schema as config.json's (docs/acp.md, "MCP servers"). Refused whole, naming the entry
 * by its index only: an unsafe name, a duplicate, an `sse` server, a `$NAME` value, a bound
 * broken. The servers of config.json come first; a session server of the same name replaces it.
 */
export function sessionMcpServers(
  servers: readonly McpServer[],
  configured: McpServersSettings | undefined,
): McpServersSettings {
  const merged: McpServersSettings = { ...configured };
  const seen = new Set<string>();
  servers.forEach((server, index) => {
    const where = `mcpServers[${index}]`;
    if (!MCP_SERVER_NAME_PATTERN.test(server.name))
      throw invalid(
        `${where}: a server name is 1 to 24 letters, digits, "-" or "_", without "__", starting with a letter or digit.`,
      );
    if (seen.has(server.name)) throw invalid(`${where}: another server has the same name.`);
    seen.add(server.name);
    const parsed = McpServerSettings().safeParse(settingsOf(server, where));
    if (!parsed.success) throw invalid(`${where}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    delete merged[server.name];
    merged[server.name] = parsed.data;
  });
  if (Object.keys(merged).length > MAX_MCP_SERVERS)
    throw invalid(`At most ${MAX_MCP_SERVERS} MCP servers, config.json's included.`);
  return merged;
}

function settingsOf(server: McpServer, where: string): object {
  if ("type" in server && server.type === "sse")
    throw invalid(`${where}: SSE servers are not supported (mcpCapabilities.sse is false).`);
  if ("url" in server) return { url: server.url, headers: pairs(server.headers, where) };
  return { command: server.command, args: server.args, env: pairs(server.env, where) };
}

/** `[{name, value}]` as a record; a `$NAME` value or a repeated name is refused. */
function pairs(
  list: readonly { name: string; value: string }[],
  where: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of list) {
    if (Object.hasOwn(out, name)) throw invalid(`${where}: a variable or header is named twice.`);
    if (VARIABLE.test(value))
      throw invalid(`${where}: a value of the form $NAME is config.json's; give the value itself.`);
    out[name] = value;
  }
  return out;
}

const invalid = (message: string) => acpError("invalid_params", message);

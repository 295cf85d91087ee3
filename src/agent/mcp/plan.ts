import { isAbsolute, resolve } from "node:path";
import type { McpTransport } from "../../protocol/schemas/mcp.js";
import {
  MCP_CALL_TIMEOUT_MS,
  MCP_STARTUP_TIMEOUT_MS,
  type McpServerSettings,
  type McpServersSettings,
} from "../../store/mcp-settings.js";

/** What one configured server needs to start, with its defaults applied (docs/mcp.md). */
export interface McpServerPlan {
  name: string;
  transport: McpTransport;
  enabled: boolean;
  settings: McpServerSettings;
  startupTimeoutMs: number;
  callTimeoutMs: number;
  allow: ReadonlySet<string> | null;
  deny: ReadonlySet<string>;
}

/** The servers of `mcp_servers`, in the order written. */
export function planServers(servers: McpServersSettings | undefined): McpServerPlan[] {
  return Object.entries(servers ?? {}).map(([name, settings]) => ({
    name,
    transport: "command" in settings ? "stdio" : "http",
    enabled: settings.enabled !== false,
    settings,
    startupTimeoutMs: settings.startup_timeout_ms ?? MCP_STARTUP_TIMEOUT_MS.default,
    callTimeoutMs: settings.call_timeout_ms ?? MCP_CALL_TIMEOUT_MS.default,
    allow: settings.tools?.allow ? new Set(settings.tools.allow) : null,
    deny: new Set(settings.tools?.deny ?? []),
  }));
}

/** Whether the allow/deny filter offers a tool of this name (deny wins). */
export function toolAllowed(plan: McpServerPlan, tool: string): boolean {
  return !plan.deny.has(tool) && (plan.allow === null || plan.allow.has(tool));
}

/** A value that is exactly `$NAME` names an environment variable; anything else is literal. */
const VARIABLE = /^\$([A-Za-z_][A-Za-z0-9_]*)$/;

/** A missing variable, named only for the debug log (the status says `variable_missing`). */
export class VariableMissing extends Error {
  override readonly name = "VariableMissing";
}

/** Each value, with `"$NAME"` replaced by that variable of `env`; throws VariableMissing. */
export function resolveValues(
  values: Record<string, string> | undefined,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const name = VARIABLE.exec(value)?.[1];
    if (name === undefined) {
      out[key] = value;
      continue;
    }
    const found = env[name];
    if (found === undefined) throw new VariableMissing(`${key} names an unset variable`);
    out[key] = found;
  }
  return out;
}

/**
 * The variables the SDK's stdio transport adds from this process on its own (its sudo-like
 * default list); each is set to undefined, which Node's spawn leaves out, unless configured.
 * Our transport (stdio-transport.ts) adds nothing, but the environment stays exact whichever
 * transport spawns.
 */
const SDK_DEFAULTS = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/**
 * A stdio server's whole environment: PATH and HOME of the child, then the server's own `env`
 * (resolved). Nothing else of the child's environment passes: no provider key unless named.
 */
export function serverEnvironment(
  configured: Record<string, string>,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const out: Record<string, string | undefined> = {};
  for (const name of SDK_DEFAULTS) out[name] = undefined;
  if (env.PATH !== undefined) out.PATH = env.PATH;
  if (env.HOME !== undefined) out.HOME = env.HOME;
  // Undefined values are dropped by spawn; the SDK's type wants strings only.
  return { ...out, ...configured } as Record<string, string>;
}

/** A relative `cwd` is relative to the workspace; none is the workspace itself. */
export function serverCwd(configured: string | undefined, workspace: string): string {
  if (configured === undefined) return workspace;
  return isAbsolute(configured) ? configured : resolve(workspace, configured);
}

import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";

/**
 * `mcp_servers` in `MC_HOME/config.json` (docs/mcp.md, "Configuration"): the MCP servers a
 * child starts. Strict like the rest of the settings: an unknown field or a typo is the file's
 * error, located by `settings.check`.
 */

// The protocol's server-name pattern (src/protocol/schemas/mcp.ts), restated because the store
// imports nothing outside itself; a test keeps the two equal.
const SERVER_NAME = /^(?!.*__)[A-Za-z0-9](?:[A-Za-z0-9_-]{0,22}[A-Za-z0-9-])?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** What `mcp.status` can list in one result. */
export const MAX_MCP_SERVERS = 32;
export const MCP_STARTUP_TIMEOUT_MS = { default: 10_000, min: 100, max: 120_000 } as const;
export const MCP_CALL_TIMEOUT_MS = { default: 60_000, min: 100, max: 3_600_000 } as const;

/** A value, or `"$NAME"`: the named environment variable of the child (docs/mcp.md). */
const Value = lazy(() => z.string().max(8192));
const ToolName = lazy(() => z.string().min(1).max(128));

const Common = lazy(() => ({
  enabled: z.boolean().optional(),
  tools: z
    .strictObject({
      allow: z.array(ToolName()).max(1024).optional(),
      deny: z.array(ToolName()).max(1024).optional(),
    })
    .optional(),
  startup_timeout_ms: z
    .number()
    .int()
    .min(MCP_STARTUP_TIMEOUT_MS.min)
    .max(MCP_STARTUP_TIMEOUT_MS.max)
    .optional(),
  call_timeout_ms: z
    .number()
    .int()
    .min(MCP_CALL_TIMEOUT_MS.min)
    .max(MCP_CALL_TIMEOUT_MS.max)
    .optional(),
}));

export const McpStdioSettings = lazy(() =>
  z.strictObject({
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(8192)).max(256).optional(),
    env: z.record(z.string().regex(ENV_NAME), Value()).optional(),
    cwd: z.string().min(1).max(4096).optional(),
    ...Common(),
  }),
);

export const McpHttpSettings = lazy(() =>
  z.strictObject({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    headers: z.record(z.string().regex(HEADER_NAME), Value()).optional(),
    ...Common(),
  }),
);

/**
 * One server: streamable HTTP when it has `url` and no `command`, else stdio. Chosen by that
 * key instead of a union, so that a typo is reported as the unknown key it is (a union would
 * only say that neither shape matched).
 */
export const McpServerSettings = lazy(() =>
  z.unknown().transform((value, ctx) => {
    const http =
      typeof value === "object" && value !== null && "url" in value && !("command" in value);
    const parsed = (http ? McpHttpSettings() : McpStdioSettings()).safeParse(value);
    if (parsed.success) return parsed.data as McpStdioSettings | McpHttpSettings;
    // An unknown key first: `"comand"` is a typo to point at, not a missing `command`.
    const issues = [...parsed.error.issues].sort(
      (a, b) => Number(b.code === "unrecognized_keys") - Number(a.code === "unrecognized_keys"),
    );
    for (const issue of issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }),
);

export const McpServersSettings = lazy(() =>
  z
    .record(z.string().regex(SERVER_NAME), McpServerSettings())
    .refine((servers) => Object.keys(servers).length <= MAX_MCP_SERVERS, {
      message: "too_many_mcp_servers",
      params: { rule: "too_many_mcp_servers" },
    }),
);

export type McpStdioSettings = Infer<typeof McpStdioSettings>;
export type McpHttpSettings = Infer<typeof McpHttpSettings>;
export type McpServerSettings = Infer<typeof McpServerSettings>;
export type McpServersSettings = Infer<typeof McpServersSettings>;

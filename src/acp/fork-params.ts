import type { McpServer } from "@agentclientprotocol/sdk";
import { z } from "zod";
import { lazy } from "../protocol/lazy.js";

/**
 * ACP's `session/fork` params (unstable in the SDK 2.4 schema, absent from its stable entry
 * point, whose typed `onRequest` therefore does not know the method): what we read of them,
 * parsed by us. Unknown fields (`additionalDirectories`, `systemPrompt`, `_meta`) are ignored,
 * as the SDK's own parsers ignore them. Built on first use (protocol/lazy.ts): a start that forks
 * nothing does not build it (docs/acp.md, "Start-up").
 */
const Pair = lazy(() => z.object({ name: z.string().max(4096), value: z.string().max(65_536) }));
const McpServerEntry = lazy(() =>
  z.union([
    z.object({
      type: z.enum(["http", "sse"]),
      name: z.string().max(4096),
      url: z.string().max(65_536),
      headers: z.array(Pair()).max(1024),
    }),
    z.object({
      name: z.string().max(4096),
      command: z.string().max(65_536),
      args: z.array(z.string().max(65_536)).max(1024),
      env: z.array(Pair()).max(1024),
    }),
  ]),
);

export const ForkParams = lazy(() =>
  z.object({
    sessionId: z.string().max(4096),
    cwd: z.string().max(65_536),
    mcpServers: z
      .array(McpServerEntry())
      .max(1024)
      .optional()
      .transform((servers) => servers as McpServer[] | undefined),
  }),
);

/** The parser the SDK's `onRequest` takes: the schema built at the first `session/fork`. */
export const forkParamsParser = { parse: (params: unknown) => ForkParams().parse(params) };

import type { McpManager } from "../../agent/mcp/manager.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";

/**
 * The `mcp` capability (docs/mcp.md, "Status"): `mcp.status` answers the manager's view at
 * once (it never waits for a server), and `mcp.changed` follows every change once `mcp` was
 * negotiated. The shutdown stops the servers within its cleanup bound.
 */
export function mcpHandlers(state: ServerState, manager: McpManager): HandlerTable {
  manager.onChange((status) => {
    if (state.phase === "ready" && state.negotiated.has("mcp"))
      state.announce("mcp.changed", { server: status });
  });
  state.closers.push(() => manager.close());
  return {
    "mcp.status": () => ({ servers: manager.status() }),
  };
}

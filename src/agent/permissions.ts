/**
 * The permission table of turns (docs/tools.md): what each level offers and what it asks the
 * user about. What a decision keeps is in rules/ (rule-book.ts).
 */
import type { Permissions } from "../protocol/schemas/turns.js";
import type { ToolKind } from "./tools/tool.js";

/**
 * Whether a call of this kind waits for the user under `permissions`; `sandboxed` says whether a
 * command runs inside the OS sandbox (only the `sandboxed` level has one).
 */
export function needsApproval(
  permissions: Permissions,
  kind: ToolKind,
  sandboxed = false,
): boolean {
  if (kind === "read") return false;
  if (kind === "mcp") return mcpNeedsApproval(permissions);
  switch (permissions) {
    // read_only: edits and commands are not offered, and a call of one anyway is a tool error
    // before any approval (tool-step.ts); should one get here all the same, it waits, never runs.
    case "read_only":
    case "ask":
      return true;
    case "accept_edits":
      return kind === "command";
    // A command inside the sandbox asks nothing; one outside it (`"sandbox": false`) asks as
    // under `ask`.
    case "sandboxed":
      return kind === "command" && !sandboxed;
    case "full_access":
      return false;
  }
}

/**
 * An MCP tool runs outside our sandbox and its effects are unknown, so it asks under every level
 * but `full_access`; under `read_only` only tools their server hints read-only are offered, and
 * those run as reads do (docs/mcp.md, "Approvals").
 */
function mcpNeedsApproval(permissions: Permissions): boolean {
  return permissions !== "full_access" && permissions !== "read_only";
}

/** Whether `permissions` offers tools of this kind to the model at all. */
export function offersKind(permissions: Permissions, kind: ToolKind): boolean {
  return permissions !== "read_only" || kind === "read";
}

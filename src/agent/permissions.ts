/**
 * The permission table of turns (docs/tools.md): what each level offers and what it asks the
 * user about, and what `allow_session` remembers for the rest of the attachment.
 */
import type { Permissions } from "../protocol/schemas/turns.js";
import type { ApprovalRequest, ToolKind } from "./tools/tool.js";

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

/** Whether `permissions` offers tools of this kind to the model at all. */
export function offersKind(permissions: Permissions, kind: ToolKind): boolean {
  return permissions !== "read_only" || kind === "read";
}

/**
 * What `allow_session` decisions allowed: every workspace edit, or for commands the same exact
 * command string. Lives as long as the attachment (the engine keeps one per attached session).
 */
export class SessionAllowances {
  private edits = false;
  private readonly commands = new Set<string>();

  allows(approval: ApprovalRequest): boolean {
    if (approval.kind === "edit") return this.edits;
    return approval.command !== null && this.commands.has(approval.command);
  }

  remember(approval: ApprovalRequest): void {
    if (approval.kind === "edit") this.edits = true;
    else if (approval.command !== null) this.commands.add(approval.command);
  }
}

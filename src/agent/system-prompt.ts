import { platform, release } from "node:os";
import type { Permissions } from "../protocol/schemas/turns.js";
import type { Tool } from "./tools/tool.js";

const PERMISSION_TEXT: Record<Permissions, string> = {
  read_only:
    "read-only: you may read, list and search files; you cannot change files or run commands.",
  ask: "ask: reading is free; every file change and every command needs the user's approval, which may be denied.",
  accept_edits:
    "accept edits: you may read and change files in the workspace; every command needs the user's approval.",
  sandboxed:
    'sandboxed: you may read and change files in the workspace; commands run without approval in a sandbox (writable: the workspace but .git/ and .mc/, and a private /tmp; no network; credentials hidden). Ask for one command outside it with "sandbox": false, which needs the user\'s approval.',
  full_access: "full access: you may read and change files and run commands in the workspace.",
};

interface PromptInputs {
  workspace: string;
  permissions: Permissions;
  tools: Tool[];
  /** The project instructions (instructions/agents-files.ts), or null when there are none. */
  agentsMd: string | null;
  now: Date;
  /** The skills' listing (skills/skill-listing.ts), with `skills` negotiated; else absent. */
  skills?: string | null;
}

/** The system prompt: who the agent is, where it works, what it may do, the project's own rules. */
export function systemPrompt(inputs: PromptInputs): string {
  const lines = [
    "You are mc-agent, a coding agent working in the user's workspace on their machine.",
    "Work carefully: read before you change, keep changes small and focused, and say plainly what you did.",
    "",
    `Workspace: ${inputs.workspace}`,
    `Platform: ${platform()} ${release()}`,
    `Date: ${inputs.now.toISOString().slice(0, 10)}`,
    `Permissions: ${PERMISSION_TEXT[inputs.permissions]}`,
    inputs.tools.length > 0
      ? `Tools: ${inputs.tools.map((t) => t.name).join(", ")}. Paths are relative to the workspace; files outside it, and writes under .git/ or .mc/, are refused.`
      : "Tools: none.",
    'A tool call the user denies returns "denied by the user": respect it and do not retry the same action.',
  ];
  if (inputs.agentsMd !== null) {
    lines.push(
      "",
      "Project instructions (AGENTS.md files, the global one first, then from the repository's root down to the workspace; a later one wins where they differ):",
      "",
      inputs.agentsMd,
    );
  }
  if (inputs.skills) lines.push("", inputs.skills);
  return lines.join("\n");
}

import type { FileHandle } from "node:fs/promises";
import { platform, release } from "node:os";
import type { Permissions } from "../protocol/schemas/turns.js";
import { headBytes } from "../protocol/text-cut.js";
import { openIfRegular } from "./tools/regular-file.js";
import type { Tool } from "./tools/tool.js";
import { type HeldFolder, holdWorkspaceFolder } from "./tools/workspace-folder.js";
import { resolveExisting } from "./tools/workspace-path.js";

/** AGENTS.md is included up to this many bytes (turns.md section 5). */
const AGENTS_MD_BYTES = 32 * 1024;

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
    lines.push("", "The workspace's AGENTS.md (project instructions):", "", inputs.agentsMd);
  }
  if (inputs.skills) lines.push("", inputs.skills);
  return lines.join("\n");
}

/**
 * The workspace's AGENTS.md, at most `AGENTS_MD_BYTES` of it, or null when there is none, it is
 * not a regular file (a FIFO must never block a turn: it is opened non-blocking and refused), or
 * it resolves outside the workspace: the confinement of the file tools holds for it too, so a
 * symlink to a file elsewhere is not sent to the model (a symlink to a file inside is followed).
 */
export async function readAgentsMd(workspace: string): Promise<string | null> {
  const handle = await openConfined(workspace);
  if (handle === null) return null;
  try {
    const buffer = Buffer.alloc(AGENTS_MD_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead <= AGENTS_MD_BYTES) return buffer.subarray(0, bytesRead).toString("utf8");
    // Cut on a character boundary, never inside a multi-byte sequence.
    const head = Buffer.from(headBytes(buffer, AGENTS_MD_BYTES));
    return `${head.toString("utf8")}\n[AGENTS.md truncated at 32 KiB]`;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * AGENTS.md resolved as read_file resolves a path, then opened in its real folder (held, reached
 * without a symlink), without following a symlink and only if it is a regular file; null for
 * anything refused or missing.
 */
async function openConfined(workspace: string): Promise<FileHandle | null> {
  let folder: HeldFolder | null = null;
  try {
    const real = await resolveExisting(workspace, "AGENTS.md");
    const parts = real.relative.split("/");
    const name = parts.pop() as string;
    folder = await holdWorkspaceFolder(workspace, parts, "AGENTS.md", false);
    return await openIfRegular(folder.at(name), { noFollow: true });
  } catch {
    return null;
  } finally {
    await folder?.close();
  }
}

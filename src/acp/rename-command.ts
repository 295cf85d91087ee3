/**
 * The `/rename <title>` command: our `session.rename` of this session, told to the editor as ACP
 * `session_info_update` (its new title and time), without calling the model.
 */
import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk";
import { isTitle } from "../protocol/schemas/manage.js";
import { EngineError } from "../server/engine-face.js";
import type { EngineLink } from "./engine-link.js";

export const RENAME_COMMAND: AvailableCommand = {
  name: "rename",
  description: "Rename this session (the title session lists show)",
  input: { hint: "the new title, one line of at most 200 characters" },
};

/** `/rename <title>` (a prompt of only that): the title; anything else is a prompt. */
export function renameCommand(input: string): { title: string } | null {
  const match = /^\s*\/rename(?:[ \t]+([^\n]*))?\s*$/.exec(input);
  return match ? { title: (match[1] ?? "").trim() } : null;
}

/** Renames `sessionId`; the reply to show, and the update to send when it was renamed. */
export async function runRename(
  engine: EngineLink,
  sessionId: string,
  saved: boolean,
  title: string,
): Promise<{ reply: string; update: SessionUpdate | null }> {
  if (!isTitle(title))
    return {
      reply: "Give a title of 1 to 200 characters on one line: `/rename <title>`.",
      update: null,
    };
  if (!saved)
    return {
      reply: "This session is saved by its first prompt; rename it after that.",
      update: null,
    };
  try {
    const { session } = await engine.request("session.rename", { id: sessionId, title });
    return {
      reply: `Renamed to: ${session.title ?? title}`,
      update: {
        sessionUpdate: "session_info_update",
        title: session.title,
        updatedAt: session.updated_at,
      },
    };
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    return { reply: `Not renamed: ${error.message}`, update: null };
  }
}

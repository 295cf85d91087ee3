/**
 * read_file beyond the workspace, into a user skill's folder (docs/skills.md, "Reading a
 * skill's files"): a path the workspace refuses is read when it resolves, symlinks included,
 * inside the folder of one of the turn's active user skills. Read only: the edit tools never
 * consult these folders, so a write there stays refused as outside the workspace.
 */
import { realpath } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { within } from "../sandbox/policy.js";
import type { ToolContext } from "../tools/tool.js";
import { ToolError } from "../tools/tool.js";
import { resolveExisting, type WorkspacePath } from "../tools/workspace-path.js";

/** A user skill's folder read_file may read: the skill's name and its real folder. */
export interface ReadableFolder {
  name: string;
  folder: string;
}

/** A path read_file reads: in the workspace, or (`outside`) in a user skill's folder. */
export type ReadablePath = WorkspacePath & { outside?: boolean };

export async function resolveReadable(
  ctx: Pick<ToolContext, "workspace" | "skillFolders">,
  given: string,
): Promise<ReadablePath> {
  try {
    return await resolveExisting(ctx.workspace, given);
  } catch (error) {
    const folders = ctx.skillFolders ?? [];
    if (!(error instanceof ToolError) || folders.length === 0 || given.includes("\0")) throw error;
    let real: string;
    try {
      real = await realpath(resolve(ctx.workspace, given));
    } catch {
      throw error;
    }
    const skill = folders.find((f) => within(real, f.folder));
    if (!skill) throw error;
    const inside = relative(skill.folder, real).split(sep).join("/") || ".";
    return {
      absolute: real,
      relative: inside,
      shown: `skill ${skill.name}: ${inside}`,
      outside: true,
    };
  }
}

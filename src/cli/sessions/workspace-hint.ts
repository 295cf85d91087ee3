import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { connect } from "../connect.js";
import type { Terminal } from "../terminal.js";
import { listSessions } from "./session-list.js";

/** What marks a workspace's top folder. */
const MARKERS = [".git", ".mc"];
/** Folders climbed at most, so a deep tree is never walked to the root without end. */
const MAX_LEVELS = 64;

/**
 * The nearest folder above `cwd` that is a workspace's top (it holds .git or .mc), or null
 * when `cwd` is such a top itself or none is found.
 */
function workspaceAbove(cwd: string): string | null {
  if (isTop(cwd)) return null;
  let dir = cwd;
  for (let level = 0; level < MAX_LEVELS; level += 1) {
    const parent = dirname(dir);
    if (parent === dir) return null;
    if (isTop(parent)) return parent;
    dir = parent;
  }
  return null;
}

function isTop(dir: string): boolean {
  return MARKERS.some((name) => {
    try {
      statSync(join(dir, name));
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Sessions are kept per folder, exactly (the backend's cwd rule): run in a subfolder of a
 * workspace, a user sees none of the workspace's. When the folder above that is the workspace's
 * top has sessions, say so and name it; the listing here stays exactly this folder's.
 * Returns the hint, or null (no such folder, no sessions there, or it cannot be listed).
 */
export async function workspaceHint(term: Terminal, cwd: string): Promise<string | null> {
  const top = workspaceAbove(cwd);
  if (top === null) return null;
  try {
    const client = await connect(term, ["session.discover", "operation.cancel"], { cwd: top });
    try {
      const { sessions } = await listSessions(term, client);
      if (sessions.length === 0) return null;
      const count = `${sessions.length} saved ${sessions.length === 1 ? "session" : "sessions"}`;
      return `This folder (${basename(cwd)}) is inside the workspace ${top}, which has ${count}; sessions belong to the exact folder they ran in: cd ${top} to list or resume them.`;
    } finally {
      await client.close();
    }
  } catch {
    return null; // a hint is never worth a failure
  }
}

/**
 * A subfolder's own instructions (docs/turns.md section 5, "Project instructions"): when
 * `read_file` reads a file below the workspace, each folder on the way (the workspace's first
 * subfolder down to the file's own) that has an `AGENTS.override.md` or `AGENTS.md` gets that
 * file's text appended to the read's result, once per session: a folder whose instructions an
 * earlier result of the replayed history already carries is not added again (after a
 * compaction, which drops those results, they come back on the next read there).
 */
import type { ContextItem } from "../providers/provider.js";
import { readInWorkspace } from "./instruction-file.js";

/** The head line of an addition; `seenIn` finds it again in a replayed result. */
const HEAD =
  /\n\[Instructions from (.+?)\/AGENTS(?:\.override)?\.md, for every file under it:\]\n/g;

/** Each addition is bounded as the workspace's own file is. */
const FOLDER_BYTES = 32 * 1024;

export class FolderInstructions {
  private readonly added: Set<string>;

  constructor(
    private readonly workspace: string,
    replayed: readonly ContextItem[],
  ) {
    this.added = seenIn(replayed);
  }

  /** What to append to the result of reading `relative` (a workspace-relative file), or "". */
  async forFile(relative: string): Promise<string> {
    const parts = relative.split("/").slice(0, -1);
    let text = "";
    for (let depth = 1; depth <= parts.length; depth++) {
      const folder = parts.slice(0, depth).join("/");
      if (this.added.has(folder)) continue;
      this.added.add(folder);
      const file = await readInWorkspace(this.workspace, folder);
      if (file === null) continue;
      text += `\n\n[Instructions from ${folder}/${file.name}, for every file under it:]\n${file.cut(FOLDER_BYTES)}`;
    }
    return text;
  }
}

/** The folders whose instructions the replayed tool results already carry. */
function seenIn(items: readonly ContextItem[]): Set<string> {
  const seen = new Set<string>();
  for (const item of items) {
    if (item.kind !== "tool_result") continue;
    const output = item.output;
    if (!output.includes("[Instructions from ")) continue;
    for (const match of output.matchAll(HEAD)) seen.add(match[1] as string);
  }
  return seen;
}

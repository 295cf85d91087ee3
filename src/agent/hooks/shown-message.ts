/**
 * A hook's message as `hook_done` shows it (docs/hooks.md): at most HOOK_TEXT_BYTES, a path
 * inside the workspace made relative to it, any other absolute path (and `~/...`) replaced by
 * `<path>`, so that no frame names a place outside the workspace.
 */
import { HOOK_TEXT_BYTES } from "../../protocol/schemas/hooks.js";
import { headBytes } from "../../protocol/text-cut.js";

/** An absolute or home path: a run of path characters after a `/` or `~/` that starts a word. */
const PATH = /(^|[\s"'`=(:,[{<])((?:~|\/)[^\s"'`),\]}>]*)/g;
const MARK = "…";

export function shownMessage(text: string, workspace: string): string {
  const inside = workspace.endsWith("/") ? workspace : `${workspace}/`;
  const hidden = text.replace(PATH, (_all, before: string, path: string) => {
    if (path === workspace) return `${before}.`;
    if (path.startsWith(inside)) return `${before}${path.slice(inside.length)}`;
    return `${before}<path>`;
  });
  const bytes = Buffer.from(hidden);
  if (bytes.length <= HOOK_TEXT_BYTES) return hidden;
  const room = HOOK_TEXT_BYTES - Buffer.byteLength(MARK);
  return `${Buffer.from(headBytes(bytes, room)).toString()}${MARK}`;
}

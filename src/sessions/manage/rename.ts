import type { SessionEntry } from "../../protocol/schemas/sessions.js";
import { openExact } from "../history/open.js";
import type { Slicer } from "../slicer.js";
import { SessionWriter } from "../writing/writer.js";

/**
 * session.rename: under the session's writer lock, the history is validated whole (exact open's
 * refusals: `session_missing`, `session_invalid`, `cwd_mismatch`), then one `title` record is
 * appended and fsynced (docs/store.md: the last title wins). `commit` is the point of no return:
 * a cancel observed before it leaves the history as it was.
 */
export async function renameSession(
  home: string,
  cwd: string,
  id: string,
  title: string,
  slicer: Slicer,
  commit: () => void,
): Promise<SessionEntry> {
  const writer = await SessionWriter.acquire({ home, cwd, id, create: false });
  try {
    const { entry } = await openExact(home, cwd, id, slicer);
    commit();
    const ts = new Date().toISOString();
    await writer.appendUnturned({ type: "title", ts, title });
    return { ...entry, title, updated_at: ts, busy: false };
  } finally {
    await writer.close();
  }
}

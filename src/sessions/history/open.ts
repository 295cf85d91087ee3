import { ProtocolError } from "../../protocol/codes.js";
import type { SessionEntry } from "../../protocol/schemas/sessions.js";
import { historyFolder } from "../../store/layout.js";
import { isBusy } from "../../store/locks.js";
import { inspectRoot, StoreUnavailable } from "../../store/safe-open.js";
import { WHOLE_READ_BUFFER_BYTES } from "../records/record-reader.js";
import type { Slicer } from "../slicer.js";
import { CwdMatcher } from "./cwd-rule.js";
import { type ValidateOptions, validateHistory } from "./validate.js";

/**
 * Exact open: revalidates ownership (a primary, regular, safely opened), the whole history and
 * the cwd rule, whatever any listing said earlier. Attaching is the caller's job, and only on
 * success. Returns the entry and the history's signature (for history cursors). A `sink` is
 * handed every record of the same pass (history-scan.ts), for a caller that also needs them;
 * a `resume` lets the pass begin past a prefix read before (admission-memo.ts); `archived`
 * reads `sessions/archive/` instead (session.history and the session.manage methods).
 */
export async function openExact(
  home: string,
  canonicalCwd: string,
  id: string,
  slicer: Slicer,
  reading: Pick<ValidateOptions, "sink" | "resume"> & { archived?: boolean } = {},
): Promise<{ entry: SessionEntry; signature: string }> {
  const root = historyFolder(home, reading.archived === true);
  try {
    if (inspectRoot(root) === "missing") throw new ProtocolError("session_missing");
  } catch (error) {
    // A root that is a symlink or not a folder holds no session that can be opened safely.
    if (error instanceof StoreUnavailable) throw new ProtocolError("session_invalid");
    throw error;
  }
  const { archived: _archived, ...options } = reading;
  const checked = await validateHistory(root, id, new CwdMatcher(canonicalCwd), slicer, {
    ...options,
    readBytes: WHOLE_READ_BUFFER_BYTES,
  });
  switch (checked.kind) {
    case "missing":
      throw new ProtocolError("session_missing");
    case "mismatch":
      throw new ProtocolError("cwd_mismatch");
    case "eligible":
      if (checked.summary.oversize) throw new ProtocolError("discovery_page_bytes");
      return { entry: checked.summary.entry(id, isBusy(root, id)), signature: checked.signature };
    default:
      throw new ProtocolError("session_invalid");
  }
}

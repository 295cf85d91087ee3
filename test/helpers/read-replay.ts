import { ProtocolError } from "../../src/protocol/codes.js";
import type { CwdRule } from "../../src/sessions/history/history-scan.js";
import { ReplayCollector } from "../../src/sessions/history/replay.js";
import type { Replay } from "../../src/sessions/history/replay-window.js";
import { validateHistory } from "../../src/sessions/history/validate.js";
import { Slicer } from "../../src/sessions/slicer.js";
import { sessionsDir } from "../../src/store/layout.js";

/**
 * A history's replay read alone, without the cwd rule (and without the admission memo): the
 * replay's own rules under test, through the same collector and validation pass a turn's
 * admission uses (HistoryMemo.exactReplay). Errors: `session_missing`; `session_invalid`
 * (unsafe, a bad line other than a torn tail, a record over 8 MiB, unreadable).
 */
interface ReplayOptions {
  /** Bytes of kept records' lines (default REPLAY_BYTES). */
  maxBytes?: number;
  /** Aborts the read between slices (`operation_cancelled`). */
  signal?: AbortSignal;
}

/** The replay of a history read without the cwd rule (history-scan.ts's validity otherwise). */
export async function readReplay(
  home: string,
  id: string,
  options: ReplayOptions = {},
): Promise<Replay> {
  const collector = new ReplayCollector(options.maxBytes);
  const slicer = new Slicer(options.signal ?? new AbortController().signal);
  const root = sessionsDir(home);
  const checked = await validateHistory(root, id, ANY_CWD, slicer, { sink: collector.add });
  if (checked.kind === "missing") throw new ProtocolError("session_missing");
  if (checked.kind !== "eligible") throw new ProtocolError("session_invalid");
  return collector.result();
}

/** A reader without the cwd rule: the replay alone never decides scope. */
const ANY_CWD: CwdRule = { matches: () => true };

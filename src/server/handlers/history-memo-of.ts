import { HistoryMemo } from "../../sessions/history/admission-memo.js";
import type { ServerState } from "../state.js";

const memos = new WeakMap<ServerState, HistoryMemo>();

/**
 * The child's one history memo (sessions/history/admission-memo.ts), shared by session.open and
 * every turn's admission: an open with `turn` negotiated reads the history through it, so the
 * first turn's admission re-reads and hashes every byte but parses none of them (issue 44,
 * "Opening a big history"; docs/store.md, "Turn admission").
 */
export function historyMemoOf(state: ServerState): HistoryMemo {
  let memo = memos.get(state);
  if (memo === undefined) {
    memo = new HistoryMemo();
    memos.set(state, memo);
  }
  return memo;
}

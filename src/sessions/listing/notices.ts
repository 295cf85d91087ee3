import type { SessionNotice } from "../../protocol/schemas/sessions.js";

/** The two listing notices, each present only when its count is above zero. */
export interface NoticeCounts {
  unverified: number;
  invalid: number;
}

export function emptyCounts(): NoticeCounts {
  return { unverified: 0, invalid: 0 };
}

export function noticesOf(counts: NoticeCounts): SessionNotice[] {
  const notices: SessionNotice[] = [];
  if (counts.unverified > 0) notices.push({ code: "cwd_unverified", count: counts.unverified });
  if (counts.invalid > 0) notices.push({ code: "sessions_omitted_invalid", count: counts.invalid });
  return notices;
}

import { utf8Length } from "../../protocol/paging.js";
import type { SessionDiscoverResult } from "../../protocol/schemas/sessions.js";

/**
 * The largest a discovery result can be with no entries: both notices with the largest count,
 * the longest cursor and progress value. Pages are filled against it, so no page exceeds
 * `page_bytes` whatever its notices say.
 */
const LARGEST_EMPTY: SessionDiscoverResult = {
  sessions: [],
  notices: [
    { code: "cwd_unverified", count: Number.MAX_SAFE_INTEGER },
    { code: "sessions_omitted_invalid", count: Number.MAX_SAFE_INTEGER },
  ],
  cursor: "x".repeat(64),
  complete: false,
  consistency: "provisional_until_complete",
  progress: "inventory_validation",
  recovery: "continue_cursor",
};

export const STEP_ENVELOPE_BYTES = utf8Length(JSON.stringify(LARGEST_EMPTY));

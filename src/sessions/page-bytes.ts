import { ProtocolError } from "../protocol/codes.js";
import { PageOverflow } from "../protocol/paging.js";

/**
 * Runs a pager call for a sessions method (list, history, discover). An item that cannot fit
 * even an empty page is the contract's `discovery_page_bytes` in all three: a projection
 * failure, never an omitted item.
 */
export function withPageBytesError<T>(pager: () => T): T {
  try {
    return pager();
  } catch (error) {
    if (error instanceof PageOverflow) throw new ProtocolError("discovery_page_bytes");
    throw error;
  }
}

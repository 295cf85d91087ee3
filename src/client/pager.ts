import { ClientError } from "./errors.js";

/** A page of any cursor-paged method: session.discover, session.history, the catalog reads. */
interface CursorPage {
  cursor: string | null;
  complete: boolean;
}

/**
 * Follows one cursor chain from its first page to the page marked complete, yielding each page.
 * An incomplete page without a cursor is a protocol violation (`what` names the method's pages).
 */
export async function* followCursor<P extends CursorPage>(
  fetchPage: (cursor: string | null) => Promise<P>,
  what: string,
): AsyncGenerator<P> {
  let cursor: string | null = null;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    if (page.complete) return;
    if (page.cursor === null)
      throw new ClientError("protocol_violation", `An incomplete ${what} page had no cursor.`);
    cursor = page.cursor;
  }
}

/** The params of a paged call: the cursor only when continuing. */
export function withCursor<T extends object>(
  params: T,
  cursor: string | null,
): T & { cursor?: string } {
  return cursor ? { ...params, cursor } : params;
}

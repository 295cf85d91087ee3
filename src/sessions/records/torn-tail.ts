/**
 * The torn-tail rule (turns.md section 8, docs/store.md "Torn tails"): the last line of a
 * history that has no LF and is not parser-valid is an interrupted append, a writer killed
 * mid-write. Every reader treats the history as ending before it (the history is not invalid
 * for it), and the next writer truncates it before appending. A bad line anywhere else, or a
 * bad last line that does end in LF, still makes the history invalid.
 *
 * One predicate, so that listing, discovery, open, history pages, replay and the writer
 * cannot disagree about which bytes are a torn tail.
 */
export function isTornTail(record: { terminated: boolean }, facts: { valid: boolean }): boolean {
  return !record.terminated && !facts.valid;
}

/**
 * What `session.search` looks at in one history record, and the hit's snippet. Searched: a
 * `title` record's title, the text of user and assistant messages, and a tool call's title (its
 * tool's name, and its input's `title` or `description` when the tool gave one). Nothing else:
 * tool output and inputs can be large and are not what a person remembers a session by.
 */
export const SEARCH_QUERY_MAX_CHARS = 256;
export const SNIPPET_MAX_CHARS = 200;

/** The searchable text of a parsed record, or null when it has none. */
export function searchableText(record: unknown): string | null {
  if (typeof record !== "object" || record === null) return null;
  const value = record as Record<string, unknown>;
  switch (value.type) {
    case "title":
      return typeof value.title === "string" ? value.title : null;
    case "user_message":
    case "assistant_message":
      return typeof value.text === "string" ? value.text : null;
    case "tool_call":
      return toolTitle(value);
    default:
      return null;
  }
}

function toolTitle(value: Record<string, unknown>): string | null {
  const parts: string[] = [];
  if (typeof value.tool === "string") parts.push(value.tool);
  const input = value.input as Record<string, unknown> | null | undefined;
  if (typeof input === "object" && input !== null) {
    for (const key of ["title", "description"])
      if (typeof input[key] === "string") parts.push(input[key] as string);
  }
  return parts.length > 0 ? parts.join(" ") : null;
}

/**
 * Case-insensitive matching. Lower-casing can change a string's length (e.g. "İ"), so the
 * snippet is cut from the lowered text's position mapped back only when lengths agree;
 * otherwise it starts at the text's beginning.
 */
export class QueryMatcher {
  private readonly needle: string;
  /** The lowered query as JSON writes it inside a string (search-index.ts reads files with it). */
  readonly rawNeedle: string;

  constructor(query: string) {
    this.needle = query.toLowerCase();
    this.rawNeedle = JSON.stringify(this.needle).slice(1, -1);
  }

  /** The snippet around the first match in `text`, or null when `text` does not match. */
  snippet(text: string): string | null {
    const lowered = text.toLowerCase();
    const at = lowered.indexOf(this.needle);
    if (at < 0) return null;
    const start = lowered.length === text.length ? Math.max(0, at - 60) : 0;
    return cutCodePoints(text, start, SNIPPET_MAX_CHARS);
  }
}

/** At most `max` UTF-16 units from `start`, never splitting a surrogate pair at either end. */
function cutCodePoints(text: string, start: number, max: number): string {
  let from = start;
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from += 1;
  let to = Math.min(text.length, from + max);
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to -= 1;
  return text.slice(from, to);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

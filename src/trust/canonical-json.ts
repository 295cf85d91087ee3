/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as `Array.prototype.sort` does), no
 * whitespace, strings and numbers as `JSON.stringify` writes them, `undefined` members left out.
 * Two spellings of the same JSON (key order, spaces, `1.0` for `1`) give the same text, so the
 * trust hash changes only when what the file means changes.
 *
 * Iterative, with an explicit stack: a project file of 1 MiB may nest half a million levels (an
 * opaque `hooks` value is never checked for depth), which a recursive writer, `JSON.stringify`
 * included, would meet with a RangeError.
 */
type Work = string | { value: unknown };

export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const work: Work[] = [{ value: root }];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    const value = item.value;
    if (Array.isArray(value)) pushReversed(work, arrayParts(value));
    else if (value !== null && typeof value === "object")
      pushReversed(work, objectParts(value as Record<string, unknown>));
    else out.push(JSON.stringify(value) ?? "null");
  }
  return out.join("");
}

function arrayParts(items: unknown[]): Work[] {
  const parts: Work[] = ["["];
  items.forEach((value, index) => {
    if (index > 0) parts.push(",");
    parts.push({ value: value === undefined ? null : value });
  });
  parts.push("]");
  return parts;
}

function objectParts(object: Record<string, unknown>): Work[] {
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort();
  const parts: Work[] = ["{"];
  keys.forEach((key, index) => {
    if (index > 0) parts.push(",");
    parts.push(`${JSON.stringify(key)}:`, { value: object[key] });
  });
  parts.push("}");
  return parts;
}

function pushReversed(work: Work[], parts: Work[]): void {
  for (let index = parts.length - 1; index >= 0; index -= 1) work.push(parts[index] as Work);
}

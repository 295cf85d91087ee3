/**
 * The YAML front matter of a SKILL.md or a command file (docs/skills.md): `---` on the first
 * line, the YAML, `---` on a line of its own, then the body. Parsed with the `yaml` package,
 * strictly (duplicate keys and any YAML error refuse it), and only ever to a plain object.
 * The package is loaded at the first front matter to parse: it was about a fifth of the turn
 * engine's load (issue 44), for every child's first turn.start, skills or none.
 */

export type FrontMatter =
  | { kind: "none"; body: string }
  | { kind: "invalid" }
  | { kind: "parsed"; fields: Record<string, unknown>; body: string };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/m;

/** The front matter of `text` and the body after it; `none` when the text opens with none. */
export async function frontMatter(text: string): Promise<FrontMatter> {
  const opening = OPENING.exec(text);
  if (!opening) return { kind: "none", body: text.replace(/^\uFEFF/, "") };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { kind: "invalid" };
  const yaml = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length);
  // An empty front matter is an empty object; anything but a mapping is invalid.
  if (yaml.trim() === "") return { kind: "parsed", fields: {}, body };
  const { parseDocument } = await import("yaml");
  try {
    const document = parseDocument(yaml, { uniqueKeys: true, strict: true, prettyErrors: false });
    if (document.errors.length > 0) return { kind: "invalid" };
    const value: unknown = document.toJS({ maxAliasCount: 16 });
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { kind: "invalid" };
    return { kind: "parsed", fields: value as Record<string, unknown>, body };
  } catch {
    return { kind: "invalid" };
  }
}

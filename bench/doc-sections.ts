/**
 * How a bench run updates docs/benchmarks.md: each bench that produced rows replaces its own
 * section (its `### <title>` line up to the next heading or marker), wherever in the file it
 * is; a section not there yet goes in at the end of the generated block. Everything else is
 * kept as it was, byte for byte: the other benches' sections (a filtered run used to rewrite
 * the file with its own rows only, or drop what lay outside the markers), their order, and the
 * hand-written text around them.
 */
export const START = "<!-- bench:start -->";
export const END = "<!-- bench:end -->";

export interface RenderedSection {
  title: string;
  /** The whole section, its `### ` heading first, without a trailing newline. */
  text: string;
}

/** Where a section ends: the next heading (of any level up to 3) or a marker. */
const BOUNDARY = /^(#{1,3} |<!-- bench:(start|end) -->$)/;

export function mergeSections(
  existing: string | null,
  fresh: RenderedSection[],
  header: string,
): string {
  let doc = existing ?? `${header}\n${START}\n${END}\n`;
  if (!doc.split("\n").includes(END)) doc = `${doc.trimEnd()}\n\n${START}\n${END}\n`;
  for (const section of fresh) doc = replaceOrAppend(doc, section);
  return doc;
}

function replaceOrAppend(doc: string, section: RenderedSection): string {
  const lines = doc.split("\n");
  const body = section.text.split("\n");
  const at = lines.indexOf(`### ${section.title}`);
  if (at === -1) {
    const end = lines.indexOf(END);
    const before = lines.slice(0, end);
    while (before.length > 0 && before.at(-1) === "") before.pop();
    const gap = before.at(-1) === START ? [] : [""];
    return [...before, ...gap, ...body, ...lines.slice(end)].join("\n");
  }
  let next = at + 1;
  while (next < lines.length && !BOUNDARY.test(lines[next] as string)) next += 1;
  // The blank lines that separated the old section from what follows stay.
  let blanks = 0;
  while (next - blanks - 1 > at && lines[next - blanks - 1] === "") blanks += 1;
  const kept = next === lines.length ? Math.max(blanks, 1) : blanks;
  return [...lines.slice(0, at), ...body, ...Array(kept).fill(""), ...lines.slice(next)].join("\n");
}

/** Diff lines shown; the rest is counted. */
export const DIFF_LINES = 40;

/** A unified diff as terminal lines with their SGR color: added green, removed red, the rest dim. */
export function diffLines(diff: string, max = DIFF_LINES): { text: string; color: string }[] {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, max).map((line) => ({
    text: `  ${line}`,
    color: line.startsWith("+") ? "32" : line.startsWith("-") ? "31" : "2",
  }));
  if (lines.length > max) shown.push({ text: `  … ${lines.length - max} more lines`, color: "2" });
  return shown;
}

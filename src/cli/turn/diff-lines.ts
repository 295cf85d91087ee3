/** Diff lines shown; the rest is counted. */
export const DIFF_LINES = 40;

/**
 * A unified diff as terminal lines with their SGR color: added green, removed red, the file
 * headers bold, the rest dim.
 */
export function diffLines(diff: string, max = DIFF_LINES): { text: string; color: string }[] {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, max).map((line) => ({
    text: `  ${line}`,
    color: colorOf(line),
  }));
  if (lines.length > max) shown.push({ text: `  … ${lines.length - max} more lines`, color: "2" });
  return shown;
}

function colorOf(line: string): string {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "1";
  if (line.startsWith("+")) return "32";
  return line.startsWith("-") ? "31" : "2";
}

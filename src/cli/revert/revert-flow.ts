import { type AgentClient, isRemote } from "../../client/index.js";
import type { ResultOf } from "../../protocol/methods.js";
import type { RevertFile } from "../../protocol/schemas/checkpoints.js";
import type { Terminal } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";

type RevertResult = ResultOf<"turn.revert">;

/** How a revert flow ended: done, only shown, declined by the user, or refused by the backend. */
type RevertOutcome = "reverted" | "dry_run" | "declined" | "refused";

interface RevertFlowOptions {
  /** Where the dry run is printed: stderr notes in chat, stdout for `mc-agent undo`. */
  print(text: string): void;
  /** Whether what `print` writes to shows color (term.noteColor or term.color). */
  color: boolean;
  /** Revert without asking (`undo --yes`); files changed outside still need `force`. */
  yes?: boolean;
  /** Also overwrite files changed outside the session's turns (`undo --yes --force`). */
  force?: boolean;
  /** Only print the dry run. */
  dryRun?: boolean;
  /** What the question calls the undone part: "the last turn", "turn 3 and the 2 after it". */
  what: string;
}

/** Diffs a dry run prints in full, and lines each; the file list itself is always whole. */
const DIFFS_SHOWN = 20;
export const DIFF_LINES = 80;

/**
 * The undo flow every frontend command shares: the dry run (`previewRevert`: files and a diff
 * each), a y/n, then the revert. When files changed since the last turn ended (the dry run's
 * `changed_outside`, or a `workspace_changed` refusal of a race) they are named and overwriting
 * them (`force`) is a second, explicit y/n.
 */
export async function revertFlow(
  term: Terminal,
  client: AgentClient,
  reader: LineReader,
  sessionId: string,
  turnId: string,
  options: RevertFlowOptions,
): Promise<RevertOutcome> {
  const preview = await client.previewRevert(sessionId, turnId);
  showPreview(preview, options);
  if (options.dryRun) return "dry_run";
  let force = false;
  if (preview.workspace_changed) {
    showOutside(term, preview.files);
    force = await confirm(reader, options.force, "Overwrite those files as well? [y/N] ");
    if (!force) return "declined";
  } else if (!(await confirm(reader, options.yes, `Undo ${options.what}? [y/N] `))) {
    return "declined";
  }
  try {
    return report(term, await client.revert(sessionId, turnId, { force }));
  } catch (error) {
    if (!isRemote(error, "workspace_changed")) throw error;
    // Files changed between the dry run and the revert: name them, then ask for force.
    const again = await client.previewRevert(sessionId, turnId);
    showOutside(term, again.files);
    if (!(await confirm(reader, options.force, "Overwrite those files as well? [y/N] ")))
      return "declined";
    return report(term, await client.revert(sessionId, turnId, { force: true }));
  }
}

function report(term: Terminal, result: RevertResult): RevertOutcome {
  const turns = result.turns_reverted === 1 ? "1 turn" : `${result.turns_reverted} turns`;
  const files = result.files_total === 1 ? "1 file" : `${result.files_total} files`;
  term.note(term.paintNote(`Undone: ${turns}, ${files} restored as they were before.`, "32"));
  return "reverted";
}

/** y (or `preset`) answers yes; anything else, Ctrl-C or the end of input, no. */
async function confirm(reader: LineReader, preset: boolean | undefined, prompt: string) {
  if (preset) return true;
  if (!reader.interactive) return false;
  const answer = await reader.key(prompt, ["y", "n"]);
  return answer.kind === "key" && answer.key === "y";
}

function showPreview(
  result: RevertResult,
  { print, color }: Pick<RevertFlowOptions, "print" | "color">,
): void {
  const turns = result.turns_reverted === 1 ? "1 turn" : `${result.turns_reverted} turns`;
  if (result.files.length === 0) {
    print(`Undoing ${turns} changes no file.`);
    return;
  }
  print(`Undoing ${turns} would change ${result.files_total} file(s):`);
  for (const file of result.files)
    print(
      `  ${file.change.padEnd(9)} ${file.path}${file.changed_outside ? "  (changed outside)" : ""}`,
    );
  if (result.files_total > result.files.length)
    print(`  … ${result.files_total - result.files.length} more`);
  const diffs = result.files.filter((f) => f.diff !== null);
  for (const file of diffs.slice(0, DIFFS_SHOWN)) print(paintDiff(file.diff as string, color));
  if (diffs.length > DIFFS_SHOWN)
    print(`… the diffs of ${diffs.length - DIFFS_SHOWN} more files are not shown`);
}

function showOutside(term: Terminal, files: readonly RevertFile[]): void {
  const outside = files.filter((f) => f.changed_outside);
  term.note(
    term.paintNote(
      "These files changed since the session's last turn ended (not by its turns); undoing overwrites them:",
      "33",
    ),
  );
  for (const file of outside) term.note(`  ${file.path}`);
}

/** A unified diff cut to DIFF_LINES, + lines green and - lines red where color is on. */
function paintDiff(diff: string, color: boolean): string {
  const paint = (line: string, code: string) => (color ? `\x1b[${code}m${line}\x1b[0m` : line);
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, DIFF_LINES).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---")) return paint(line, "1");
    if (line.startsWith("+")) return paint(line, "32");
    if (line.startsWith("-")) return paint(line, "31");
    return line;
  });
  if (lines.length > DIFF_LINES) shown.push(`… ${lines.length - DIFF_LINES} more lines`);
  return shown.join("\n");
}

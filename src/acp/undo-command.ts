/**
 * The `/undo` command: our `turn.revert` of the session's last live turn.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { LiveTurns } from "../protocol/live-turns.js";
import type { RevertFile, TurnRevertResult } from "../protocol/schemas/checkpoints.js";
import type { SessionHistoryResult } from "../protocol/schemas/sessions.js";
import { fitChars } from "../protocol/text-cut.js";
import { EngineError } from "../server/engine-face.js";
import type { EngineLink } from "./engine-link.js";

/**
 * ACP's `/undo` (docs/acp.md, "Undo"): the one command this agent advertises, run by the agent
 * itself instead of being sent to the model. It undoes the session's last live turn through our
 * `turn.revert`, so the files go back to their state before that turn and the next prompt's
 * context leaves it out. Files changed outside the session since its last turn ended are never
 * overwritten silently: the reply names them and `/undo force` overwrites them.
 */
export const UNDO_COMMAND: AvailableCommand = {
  name: "undo",
  description:
    "Undo the last turn: restore the files it changed (by any tool, the shell included) and leave it out of the conversation",
  input: { hint: "force: also overwrite files changed since that turn" },
};

/** Files a reply names at most; the rest are counted. */
const FILES_NAMED = 20;
const PATH_CHARS = 160;

/** `/undo` or `/undo force` (a prompt of only that); anything else is a prompt for the model. */
export function undoCommand(input: string): { force: boolean } | null {
  const match = /^\s*\/undo(?:\s+(force))?\s*$/.exec(input);
  return match ? { force: match[1] === "force" } : null;
}

/** Runs the undo for `sessionId` and returns the reply to show (never throws an EngineError). */
export async function runUndo(
  engine: EngineLink,
  sessionId: string,
  force: boolean,
): Promise<string> {
  if (!engine.checkpoints)
    return "Undo is unavailable here: without git on PATH no checkpoints are recorded.";
  const last = (await liveTurns(engine, sessionId)).at(-1);
  if (!last) return "Nothing to undo: this session has no turn left to undo.";
  const params = { session_id: sessionId, turn_id: last.id };
  try {
    const result = await engine.request("turn.revert", force ? { ...params, force } : params);
    return undone(last.firstLine, result);
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    if (error.code !== "workspace_changed") return `Nothing was undone: ${error.message}`;
    const preview = await engine.request("turn.revert", { ...params, dry_run: true });
    const outside = preview.files.filter((file) => file.changed_outside);
    return [
      `Nothing was undone: ${outside.length === 1 ? "a file" : "files"} changed since that turn ended, outside this session:`,
      ...named(outside, outside.length),
      "Send `/undo force` to undo the turn anyway, overwriting them.",
    ].join("\n");
  }
}

async function liveTurns(engine: EngineLink, id: string) {
  const live = new LiveTurns();
  let cursor: string | null = null;
  for (;;) {
    const page: SessionHistoryResult = await engine.request(
      "session.history",
      cursor ? { id, cursor } : { id },
    );
    for (const event of page.events) live.add(event);
    if (page.complete || page.cursor === null) return live.turns;
    cursor = page.cursor;
  }
}

function undone(firstLine: string, result: TurnRevertResult): string {
  const written = result.files.filter((f) => f.change !== "kept" && f.change !== "skipped");
  const skipped = result.files.filter((f) => f.change === "skipped");
  const turns =
    result.turns_reverted === 1 ? "turn" : `turn and the ${result.turns_reverted - 1} after it`;
  return [
    `Undid the ${turns} "${fitChars(firstLine, 60)}": ${count(written.length, "file")} put back.`,
    ...named(written, result.files_total - skipped.length),
    ...(skipped.length > 0
      ? [
          `Left as they are (not in checkpoints: over 8 MiB or in a nested repository): ${skipped.length}.`,
        ]
      : []),
    "The conversation goes on from before it: the model no longer sees the undone turn.",
  ].join("\n");
}

function named(files: RevertFile[], total: number): string[] {
  const lines = files
    .slice(0, FILES_NAMED)
    .map((f) => `- ${fitChars(f.path, PATH_CHARS)} (${f.change})`);
  if (total > lines.length) lines.push(`- … and ${total - lines.length} more`);
  return lines;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

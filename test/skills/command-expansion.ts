/** The one command every frontend's test expands, and what it must expand to (docs/skills.md). */
import { join } from "node:path";
import { writeCommand } from "./skill-files.js";

export const FIX_FILE = [
  "---",
  "description: Fix an issue",
  "argument-hint: <issue> [priority]",
  "---",
  "Fix issue $1 with priority $2.",
  "All: $ARGUMENTS",
  "Missing: [$5]; $10 is $1 then 0.",
  "",
].join("\n");

/** Typed after `/fix`: a quoted word, and an argument that is itself a placeholder. */
export const FIX_ARGUMENTS = '42 "very high" extra $1';

export const FIX_EXPANDED = [
  "Fix issue 42 with priority very high.",
  'All: 42 "very high" extra $1',
  "Missing: []; 420 is 42 then 0.",
  "",
].join("\n");

export function writeFix(workspace: string): void {
  writeCommand(join(workspace, ".mc/commands"), "fix", FIX_FILE);
}

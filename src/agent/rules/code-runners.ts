/**
 * Which commands run code the workspace defines (docs/tools.md, "Escalations and code runners").
 * `npm test` runs package.json's script and the test files, `make` the Makefile, `pytest` the
 * tests and conftest.py, `./scripts/x.sh` itself: after the model changed the workspace unseen,
 * an old allow rule for them would run the model's new code unasked. Conservative: every program
 * is a code runner except the few below, which read or change files only as their arguments say
 * (and whose options the option table bounds).
 */
import type { RuleSubject } from "./rule-match.js";

const INERT_PROGRAMS = new Set([
  "cat",
  "cp",
  "df",
  "diff",
  "du",
  "echo",
  "file",
  "git",
  "grep",
  "head",
  "ls",
  "mkdir",
  "mv",
  "pwd",
  "rg",
  "rm",
  "sort",
  "stat",
  "tail",
  "touch",
  "tree",
  "wc",
  "which",
]);

/** Whether a `shell` call may run workspace-defined code; false for edits and MCP calls. */
export function runsWorkspaceCode(subject: RuleSubject): boolean {
  if (subject.tool !== "shell") return false;
  const program = subject.command?.words[0];
  // A program named by a path (`./x`, `/usr/bin/git`) may be a workspace file: a runner.
  return program === undefined || !INERT_PROGRAMS.has(program);
}

import { clipChars } from "../protocol/text-cut.js";
import type { CaseOutcome } from "./case.js";
import type { SuiteReport, SuiteSummary } from "./runner.js";

/** Human-readable conformance report: one line per case, details only for failures. */

/** How much of a failing case's wire transcript to show (its end is where it went wrong). */
const TRANSCRIPT_LINES = 40;

export function formatOutcome(outcome: CaseOutcome): string {
  const status = outcome.skipped ? "SKIP" : outcome.ok ? "PASS" : "FAIL";
  const head = `${status} ${outcome.tier.padEnd(6)} ${outcome.id} — ${outcome.title} [${outcome.clause}] (${outcome.ms} ms)`;
  if (outcome.skipped && outcome.error) return `${head}\n    ${outcome.error}`;
  if (outcome.ok) return head;
  const lines = [head, ...indent(`error: ${outcome.error ?? "failed"}`)];
  const transcript = outcome.transcript ?? [];
  if (transcript.length > 0) {
    const shown = transcript.slice(-TRANSCRIPT_LINES);
    const cut = transcript.length - shown.length;
    lines.push(
      `    wire transcript${cut > 0 ? ` (last ${shown.length} of ${transcript.length})` : ""}:`,
    );
    for (const entry of shown) {
      for (const line of entry.split("\n").slice(0, 5)) lines.push(`      ${clip(line)}`);
    }
  }
  const stderr = outcome.stderrTail?.trim();
  if (stderr) {
    lines.push("    stderr tail:");
    for (const line of stderr.split("\n").slice(-20)) lines.push(`      ${line}`);
  }
  return lines.join("\n");
}

export function formatSummary(summary: SuiteSummary): string {
  const verdict = summary.ok ? "conformant" : "NOT conformant";
  return (
    `${summary.total} cases: ${summary.passed} passed, ${summary.failed} failed ` +
    `(${summary.mustFailed} MUST), ${summary.skipped} skipped in ${(summary.ms / 1000).toFixed(1)} s: ${verdict}`
  );
}

export function formatJson(report: SuiteReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function clip(line: string): string {
  return clipChars(line, 400);
}

function indent(text: string): string[] {
  return text.split("\n").map((line) => `    ${line}`);
}

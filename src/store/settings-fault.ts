/**
 * What is wrong with a settings file that exists but is invalid, as the child found it at start.
 * `text` (the decoded file) is kept only for syntax and schema faults, so that `locateFault`
 * can turn the fault into a line and column without reading the file again.
 */
export interface SettingsFault {
  reason: SettingsFaultReason;
  text: string | null;
  /** The first schema issue: zod's code, where it is, unknown keys, our own rule if any. */
  issue: { code: string; path: (string | number)[]; keys: string[]; rule: string | null } | null;
}

export const SETTINGS_FAULT_REASONS = [
  "syntax",
  "encoding",
  "schema",
  "too_large",
  "not_regular",
  "unreadable",
] as const;
type SettingsFaultReason = (typeof SETTINGS_FAULT_REASONS)[number];

/** A fault as `settings.check` reports it: a rule name and a 1-based position, never content. */
export interface LocatedFault {
  reason: SettingsFaultReason;
  rule: string | null;
  line: number | null;
  column: number | null;
}

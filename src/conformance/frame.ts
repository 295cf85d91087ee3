/**
 * A frame the child wrote, as the harness hands it to a case and the wire audit reads it: a
 * response (its ID with a result or an error) or a notification (no ID; its other fields are
 * read by name). Its own file because both the harness and the audit use it.
 */
export interface Frame {
  id: string | null;
  result?: Record<string, unknown>;
  /** `recovery` and `provider` only with `errors.recovery` (docs/extensions.md). */
  error?: { code: string; message: string; recovery?: string; provider?: string | null };
}

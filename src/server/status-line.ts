import type { StatusResult } from "../protocol/schemas/lifecycle.js";
import { checkStatusResult } from "../protocol/schemas/status-check.js";

/**
 * `status` answers, the frames a client may pipeline by the thousand: checked exactly
 * (checkStatusResult), and encoded as `encodeResult` would, `{"id":…,"result":…}` and an LF.
 * Between two requests the result rarely changes (it is the child's phase, its attachment and
 * selection, its active requests), so the result's JSON is kept with the checked result it was
 * made from and reused while the next checked result is equal to it, field by field: its JSON
 * is then the same text. Stringifying each result was the largest share of a pipelined
 * status's time (docs/benchmarks.md, "The status loop's garbage").
 */
export class StatusLines {
  private last: StatusResult | null = null;
  /** What follows the ID in the line: the result's JSON, the closing brace and the LF. */
  private tail = "";

  /** The answer's line (with its LF), or null when `result` is not a valid status result. */
  line(id: string, result: unknown): string | null {
    const checked = checkStatusResult(result);
    if (checked === null) return null;
    if (this.last === null || !sameStatus(checked, this.last)) {
      this.last = checked;
      this.tail = `,"result":${JSON.stringify(checked)}}\n`;
    }
    return `{"id":${JSON.stringify(id)}${this.tail}`;
  }
}

/** Equal values, for two results as checkStatusResult returns them (its keys, its order). */
function sameStatus(a: StatusResult, b: StatusResult): boolean {
  return (
    a.state === b.state &&
    a.cwd === b.cwd &&
    a.worker === b.worker &&
    a.requests_left === b.requests_left &&
    (a.attachment === null
      ? b.attachment === null
      : b.attachment !== null &&
        a.attachment.session_id === b.attachment.session_id &&
        a.attachment.saved === b.attachment.saved) &&
    a.selection.model === b.selection.model &&
    a.selection.effort === b.selection.effort &&
    a.active_requests.length === b.active_requests.length &&
    a.active_requests.every(
      (op, i) => op.id === b.active_requests[i]?.id && op.method === b.active_requests[i]?.method,
    )
  );
}

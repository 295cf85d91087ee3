import type { McpServerStatus } from "../client/index.js";

/**
 * The longest start a child allows a server (`startup_timeout_ms` at most 120 s, docs/mcp.md):
 * the child fails every start at its own timeout, so a server leaves `starting` by then. The
 * CLI adds a grace of its own so that only a backend breaking that promise meets this bound.
 * Restated here because the CLI does not read the store; a test keeps the two equal.
 */
export const MCP_STARTUP_MAX_MS = 120_000;
export const MCP_WAIT_GRACE_MS = 5_000;

export interface Settled {
  servers: McpServerStatus[];
  /** Why the wait ended with servers still `starting`, if it did. */
  stopped: "interrupted" | "bound" | null;
}

/**
 * What the CLI knows of the servers: `mcp.status` once, then every `mcp.changed`. The newest
 * `mcp.changed` of a server is its state whichever frame was read first: one written before the
 * status answer equals that answer's entry (a later change would have its own notification),
 * one written after it is newer. So nothing here depends on how the frames were interleaved.
 */
export class McpWatch {
  private readonly latest = new Map<string, McpServerStatus>();
  private wake: (() => void) | null = null;

  /** For `SpawnOptions.onMcpChanged`: never throws. */
  readonly onChanged = (status: McpServerStatus): void => {
    this.latest.set(status.name, status);
    this.wake?.();
  };

  /** The servers of `answer` (the mcp.status result), each as newest known. */
  current(answer: McpServerStatus[]): McpServerStatus[] {
    return answer.map((s) => this.latest.get(s.name) ?? s);
  }

  /**
   * Waits until no server is `starting`, the signal is aborted, or `boundMs` has passed; a
   * server that becomes ready and then fails stays as its newest status says.
   */
  async settle(answer: McpServerStatus[], signal: AbortSignal, boundMs: number): Promise<Settled> {
    const deadline = Date.now() + boundMs;
    while (this.current(answer).some((s) => s.state === "starting")) {
      if (signal.aborted) return { servers: this.current(answer), stopped: "interrupted" };
      const left = deadline - Date.now();
      if (left <= 0) return { servers: this.current(answer), stopped: "bound" };
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.wake = null;
          resolve();
        };
        const timer = setTimeout(done, left);
        signal.addEventListener("abort", done, { once: true });
        this.wake = done;
      });
    }
    return { servers: this.current(answer), stopped: null };
  }
}

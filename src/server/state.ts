import type { SandboxKind } from "../agent/sandbox/index.js";
import type { Capability } from "../protocol/capabilities.js";
import type { Attachment, Selection } from "../protocol/schemas/lifecycle.js";

/** What the child knows about itself; shared by the dispatcher and the domain handlers. */
export interface ServerState {
  /** realpath(process.cwd()) at start; never changes. */
  readonly cwd: string;
  /** MC_HOME, resolved once at start. */
  readonly home: string;
  /**
   * The environment the child was started with plus the credentials handed over on fd 3: a copy,
   * in memory only (credential lookups read it; process.env no longer holds the keys).
   */
  readonly env: NodeJS.ProcessEnv;
  phase: "uninitialized" | "ready" | "shutting_down";
  negotiated: ReadonlySet<Capability>;
  attachment: Attachment | null;
  selection: Selection;
  /**
   * The parameters a negotiated extension advertises beyond its fixed object, found out by this
   * child (the turn extension's `sandbox`, from a real run); set by the domain handlers.
   */
  extensionExtras: Partial<Record<Capability, () => object>>;
  /**
   * What a negotiated extension's parameters wait for before `initialize` answers: work started
   * soon after the child starts (the turn extension's sandbox probe), which settles, never
   * rejects, within its own bound. A function that starts it if it has not started yet, so that
   * an `initialize` already waiting when the child starts is not held behind it.
   */
  extensionPending: Partial<Record<Capability, () => Promise<void>>>;
  /**
   * Set when `initialize` answered the sandbox from the probe memo (handlers/sandbox-answer.ts):
   * starts the real probe if it has not started and settles with the sandbox it found.
   */
  sandboxConfirmed?: () => Promise<SandboxKind | null>;
  /**
   * Writes a notification about the child itself (one whose spec names no request, such as
   * `mcp.changed`); set by the dispatcher. The caller checks the capability was negotiated.
   */
  announce: (method: "mcp.changed", params: unknown) => void;
  /**
   * Work the shutdown starts at once and waits for within `cleanup_ms`, beside the requests it
   * drains (the MCP servers' stop).
   */
  closers: Array<() => Promise<void>>;
  /** Called when another session replaces the attachment (its `SessionEnd` hooks, hooks.md). */
  attachmentEnds?: () => void;
  /**
   * Starts what a child's first turn.start loads and reads before its admission's passes (the
   * turn engine's module, the catalog's caches), for an open to run while it would otherwise
   * only wait (split-scan.ts); set by the turn handlers, once `turn` is served.
   */
  warmFirstTurn?: () => void;
}

export function createState(cwd: string, home: string, env: NodeJS.ProcessEnv): ServerState {
  return {
    cwd,
    home,
    env,
    phase: "uninitialized",
    negotiated: new Set(),
    attachment: null,
    selection: { model: null, effort: null },
    extensionExtras: {},
    extensionPending: {},
    announce: () => {},
    closers: [],
  };
}

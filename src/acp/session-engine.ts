/**
 * The engine an ACP session has (docs/acp.md, "Many sessions"): live, evicted (closed, its
 * model and effort kept), reopened on the session's next use, or closed for good; and the
 * requests that hold it meanwhile.
 */
import type { Selection } from "../protocol/schemas/lifecycle.js";
import type { EngineLink } from "./engine-link.js";
import { acpError } from "./errors.js";

export class SessionEngine {
  /** The engine while live; null once evicted or closed. */
  private link: EngineLink | null;
  /** The model and effort in force when it was evicted, restored when it is reopened. */
  private evictedSelection: Selection | null = null;
  private evicting: Promise<void> | null = null;
  private reopening: Promise<void> | null = null;
  /** Requests working on the session now (`hold`). */
  private holds = 0;

  constructor(engine: EngineLink) {
    this.link = engine;
  }

  /** The live engine; every use goes through `Sessions.using`, which reopens an evicted one. */
  get engine(): EngineLink {
    if (!this.link) throw acpError("internal_error", "The session's engine is not open.");
    return this.link;
  }

  /** The live engine, or null (evicted, closed): for what has nothing to do without one. */
  get current(): EngineLink | null {
    return this.link;
  }

  get live(): boolean {
    return this.link !== null;
  }

  /** Live, held by no request and not being reopened: the session decides the rest (idle, saved). */
  get closable(): boolean {
    return this.live && this.holds === 0 && this.reopening === null;
  }

  /** A request works on the session (sessions.ts `hold`, `using`): no eviction until the release. */
  hold(): () => void {
    this.holds += 1;
    let released = false;
    return () => {
      if (!released) this.holds -= 1;
      released = true;
    };
  }

  /**
   * Closes the engine (its history closed, its lock released, its MCP servers stopped), the
   * model and effort in force read first, to be restored on reopen. The slot is free at once.
   */
  async evict(): Promise<void> {
    const link = this.link;
    if (!link) return;
    this.link = null;
    this.evicting = (async () => {
      try {
        this.evictedSelection = (await link.request("model.catalog", {})).selection;
      } catch {
        this.evictedSelection = null;
      }
      await link.close();
    })();
    await this.evicting;
  }

  /**
   * Gives an evicted session its engine again: `open` (a new engine with its history open),
   * then `restore` of the model and effort it had, when they were read.
   */
  async reopened(
    open: () => Promise<EngineLink>,
    restore: (selection: Selection) => Promise<void>,
  ): Promise<void> {
    if (this.link) return;
    this.reopening ??= (async () => {
      await this.evicting;
      const engine = await open();
      this.link = engine;
      const selection = this.evictedSelection;
      this.evictedSelection = null;
      if (selection) await restore(selection);
    })().finally(() => {
      this.reopening = null;
    });
    await this.reopening;
  }

  /** Closes the engine for good (session/close, a second load, EOF). */
  async close(): Promise<void> {
    await this.reopening?.catch(() => {});
    const link = this.link;
    this.link = null;
    await this.evicting;
    await link?.close();
  }
}

/**
 * A child's hooks across its turns and attachments (docs/hooks.md): which hooks apply (the
 * global file's, and the project's once the workspace is trusted), `SessionStart` at an
 * attachment's first turn, and `SessionEnd` when the attachment ends (another session attached,
 * shutdown, EOF), which emits no event and is bounded by the caller's signal.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { Permissions, TurnEventBody } from "../../protocol/schemas/turns.js";
import type { HooksSettings } from "../../store/hooks-settings.js";
import { primaryName, sessionsDir } from "../../store/layout.js";
import { globalSettingsPath, projectSettingsPath } from "../../store/settings.js";
import { permissionMode } from "./claude-fields.js";
import { type ConfiguredHook, claudeOnlyEvents, flattenHooks } from "./hook-config.js";
import { type HookSite, matchingHooks, runHooks } from "./hook-runner.js";
import { TurnHooks } from "./turn-hooks.js";

export interface ChildHookOptions {
  home: string;
  workspace: string;
  hooks: { global: HooksSettings | null; project: HooksSettings | null };
  /** The scrubbed environment of `shell` (no provider keys). */
  env: NodeJS.ProcessEnv;
  /**
   * Whether the workspace is trusted for its project file's code (project-trust.ts), as the
   * child found it at its start: like the settings, fixed for the child's life.
   */
  projectTrusted: boolean;
}

export class ChildHooks {
  private readonly global: ConfiguredHook[];
  private readonly project: ConfiguredHook[];
  /** The workspace is the home folder: its `.mc/config.json` is the global file itself. */
  private readonly projectIsGlobal: boolean;
  private readonly env: NodeJS.ProcessEnv;
  /** The session whose `SessionStart` ran in this attachment, and its permission level. */
  private started: { sessionId: string; permissions: Permissions } | null = null;
  private ending: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChildHookOptions) {
    this.global = flattenHooks("global", options.hooks.global);
    // The home folder's `.mc/config.json` is MC_HOME's own config.json: global, read once.
    this.projectIsGlobal = sameFile(
      globalSettingsPath(options.home),
      projectSettingsPath(options.workspace),
    );
    this.project = this.projectIsGlobal ? [] : flattenHooks("project", options.hooks.project);
    const dir = options.workspace;
    this.env = { ...options.env, CLAUDE_PROJECT_DIR: dir, MC_PROJECT_DIR: dir };
  }

  /** Every hook this child may run, trusted or not, with where it comes from. */
  get configured(): readonly ConfiguredHook[] {
    return [...this.global, ...this.project];
  }

  /** Claude Code's events the files configure that never run here (docs/hooks.md). */
  get claudeOnly(): { source: "global" | "project"; event: string; hooks: number }[] {
    const { hooks } = this.options;
    return [
      ...claudeOnlyEvents(hooks.global).map((e) => ({ source: "global" as const, ...e })),
      ...(this.projectIsGlobal ? [] : claudeOnlyEvents(hooks.project)).map((e) => ({
        source: "project" as const,
        ...e,
      })),
    ];
  }

  /** The hooks that run now: the project's only in a trusted workspace. */
  async site(): Promise<HookSite> {
    const { options } = this;
    const trusted = this.project.length > 0 && options.projectTrusted;
    return {
      hooks: trusted ? [...this.global, ...this.project] : this.global,
      workspace: options.workspace,
      env: this.env,
    };
  }

  /** One turn's hooks; the turn's first `SessionStart` of its attachment is due if none ran. */
  async forTurn(turn: {
    sessionId: string;
    savedSession: boolean;
    permissions: Permissions;
    signal: AbortSignal;
    emit: ((event: TurnEventBody) => Promise<void>) | null;
    idPrefix: string;
  }): Promise<TurnHooks> {
    await this.ending;
    const first = this.started?.sessionId !== turn.sessionId;
    const started = { sessionId: turn.sessionId, permissions: turn.permissions };
    return new TurnHooks({
      site: await this.site(),
      sessionId: turn.sessionId,
      transcriptPath: this.transcriptPath(turn.sessionId),
      permissions: turn.permissions,
      signal: turn.signal,
      emit: turn.emit,
      idPrefix: turn.idPrefix,
      sessionStart: first ? (turn.savedSession ? "resume" : "startup") : null,
      markStarted: () => {
        this.started = started;
      },
    });
  }

  /**
   * The attachment ended: `SessionEnd` for its session, if its `SessionStart` ran. `reason` is
   * `detach` (another session attached) or `exit` (shutdown, EOF).
   */
  end(reason: "detach" | "exit", signal: AbortSignal): Promise<void> {
    const started = this.started;
    this.started = null;
    if (!started) return this.ending;
    this.ending = this.ending.then(() => this.runEnd(started, reason, signal)).catch(() => {});
    return this.ending;
  }

  private async runEnd(
    started: { sessionId: string; permissions: Permissions },
    reason: string,
    signal: AbortSignal,
  ): Promise<void> {
    const site = await this.site();
    if (matchingHooks(site, "SessionEnd", null).length === 0) return;
    let ids = 0;
    await runHooks(site, {
      event: "SessionEnd",
      subject: null,
      input: {
        session_id: started.sessionId,
        transcript_path: this.transcriptPath(started.sessionId),
        cwd: this.options.workspace,
        hook_event_name: "SessionEnd",
        permission_mode: permissionMode(started.permissions),
        permissions: started.permissions,
        reason,
      },
      signal,
      newId: () => `end.h${++ids}`,
    });
  }

  private transcriptPath(sessionId: string): string {
    return join(sessionsDir(this.options.home), primaryName(sessionId));
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

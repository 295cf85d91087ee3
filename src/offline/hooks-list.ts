/**
 * What `mc-agent hooks` and `doctor` show of the hooks (docs/hooks.md, "Seeing them"): each
 * configured hook, the file it comes from, whether it runs (a project's only in a trusted
 * workspace), and the Claude Code tool names its matcher lists that no tool of ours answers to.
 * Read from the files as a child would read them at its start; nothing is run.
 */
import { ChildHooks } from "../agent/hooks/child-hooks.js";
import { unmatchedClaudeNames } from "../agent/hooks/matcher.js";
import { isProjectHooksTrusted } from "../agent/hooks/project-trust.js";
import { resolveHome } from "../store/home.js";
import { loadSettings } from "../store/settings.js";

export interface ListedHook {
  source: "global" | "project";
  event: string;
  matcher: string | null;
  command: string;
  timeout_s: number;
  /** False for a project's hook while the workspace is not trusted. */
  runs: boolean;
  /** Claude Code tool names in the matcher that match nothing here. */
  warnings: string[];
}

export interface HooksListing {
  hooks: ListedHook[];
  /** Claude Code events configured that mc-agent has no moment for: their hooks never run. */
  claude_only_events: { source: "global" | "project"; event: string; hooks: number }[];
  /** Which settings files are invalid (their hooks are ignored with the rest of them). */
  invalid: { global: boolean; project: boolean };
}

export async function listHooks(env: NodeJS.ProcessEnv, cwd: string): Promise<HooksListing> {
  const home = resolveHome(env);
  const settings = loadSettings(home, cwd);
  const child = new ChildHooks({
    home,
    workspace: cwd,
    hooks: settings.hooks,
    env: {},
    projectTrusted: isProjectHooksTrusted(home, cwd, settings.project),
  });
  const running = new Set((await child.site()).hooks);
  return {
    hooks: child.configured.map((hook) => ({
      source: hook.source,
      event: hook.event,
      matcher: hook.matcher ?? null,
      command: hook.command,
      timeout_s: hook.timeoutMs / 1000,
      runs: running.has(hook),
      warnings: unmatchedClaudeNames(hook.matcher),
    })),
    claude_only_events: child.claudeOnly,
    invalid: settings.invalid,
  };
}

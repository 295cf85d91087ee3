import { sandboxAvailability } from "../agent/sandbox/index.js";
import type { SandboxAvailability } from "../agent/sandbox/probe.js";

/**
 * For `mc-agent doctor`: whether the sandbox of the `sandboxed` level can start here, by the
 * same real probe a child runs (src/agent/sandbox/), without a child; when not, the engine's
 * reason and fix and the sandbox's own error line.
 */
type SandboxFinding = Pick<
  SandboxAvailability,
  "sandbox" | "problem" | "reason" | "fix" | "detail"
>;

export function sandboxFinding(
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv,
): SandboxFinding {
  const { sandbox, problem, reason, fix, detail } = sandboxAvailability(workspace, home, env);
  return { sandbox, problem, reason, fix, detail };
}

import { sandboxFinding } from "../../offline/sandbox-probe.js";

/**
 * The doctor's sandbox line: the same real probe a child runs for the `sandboxed` level
 * (src/offline/sandbox-probe.ts), with the reason and the fix when none can start. A missing
 * sandbox is shown, not counted as a problem: every other permission level works without one.
 */
export interface SandboxLine {
  /** true: it starts; false: it cannot; null: this platform has none to offer. */
  ok: boolean | null;
  text: string;
}

export function sandboxLine(workspace: string, home: string, env: NodeJS.ProcessEnv): SandboxLine {
  const found = sandboxFinding(workspace, home, env);
  if (found.sandbox !== null)
    return { ok: true, text: `${found.sandbox} (the sandboxed level works)` };
  if (found.problem === "unsupported_platform")
    return { ok: null, text: found.reason ?? "no OS sandbox on this platform" };
  const detail = found.detail ? ` (${found.detail})` : "";
  return { ok: false, text: `${found.reason}; to fix it: ${found.fix}${detail}` };
}

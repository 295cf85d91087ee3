/**
 * The doctor's sandbox line: the one slot the sandbox (src/agent/sandbox/, another branch) fills
 * at merge. Until then this build has no sandbox, and says so.
 *
 * At merge: return from `sandboxAvailability(workspace, home, env)` of
 * src/agent/sandbox/index.ts: `{ ok: true, text: a.sandbox }` when `a.sandbox` is not null,
 * else `{ ok: false, text: `${a.reason}; to fix it: ${a.fix}` + (a.detail ? ` (${a.detail})` : "") }`.
 */
export interface SandboxLine {
  /** true: it starts; false: it cannot (a problem); null: this build has none. */
  ok: boolean | null;
  text: string;
}

export function sandboxLine(
  _workspace: string,
  _home: string,
  _env: NodeJS.ProcessEnv,
): SandboxLine {
  return { ok: null, text: "not available in this build" };
}

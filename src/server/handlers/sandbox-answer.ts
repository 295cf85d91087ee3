import type { ChildSandbox, SandboxKind } from "../../agent/sandbox/index.js";
import type { ServerState } from "../state.js";
import type { TurnFacts } from "../turn-facts.js";

/**
 * The sandbox an `initialize` negotiating `turn` names (`extensions.turn.sandbox`). Normally the
 * real probe's: the answer waits for it, and it starts in the loop's first check phase, after
 * the frames already waiting are read (its spawn forks the whole process synchronously, 4-8 ms,
 * which an `initialize` that does not negotiate `turn`, waiting in the pipe since the spawn,
 * should not wait behind; one that does starts it at once).
 *
 * `mc-agent acp`'s first engine may instead be handed facts whose probe memo answered and whose
 * probes have not started (src/acp/starter.ts, docs/acp.md "Start-up"): then the memo's sandbox
 * is the answer, at once, and the real probe starts when the ACP side asks what it found
 * (`state.sandboxConfirmed`, after the session's answer), when a `sandboxed` turn starts (it
 * waits for it and is refused or allowed by it, never by the memo), or at the shutdown
 * (child-sandbox.ts). The real run rewrites a memo it finds wrong (turn-facts.ts), as the stdio
 * starter's does (docs/tools.md, "Found out once per child").
 */
export function answerSandbox(
  state: ServerState,
  sandbox: ChildSandbox,
  memo: SandboxKind | null | undefined,
): () => SandboxKind | null {
  if (memo === undefined) {
    state.extensionPending.turn = () => sandbox.start();
    setImmediate(() => sandbox.start());
    return () => sandbox.availability().sandbox;
  }
  let probed = false;
  state.sandboxConfirmed = async () => {
    await sandbox.start();
    probed = true;
    return sandbox.availability().sandbox;
  };
  return () => (probed ? sandbox.availability().sandbox : memo);
}

/**
 * The sandbox the probe memo answered for `facts` (turn-facts.ts builds `remembered` as
 * `{turn: {sandbox, checkpoints}}`), or undefined when it did not answer.
 */
export function memoSandbox(facts: TurnFacts | undefined): SandboxKind | null | undefined {
  const turn = facts?.remembered?.turn as { sandbox?: SandboxKind | null } | undefined;
  return turn === undefined ? undefined : (turn.sandbox ?? null);
}

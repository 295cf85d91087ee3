import type { ChildInputs, TurnFacts } from "../server/engine-face.js";

/**
 * What the agent's first engine finds out at its `initialize` (its sandbox, by a real run of
 * it, and git), started by the ACP starter (starter.ts `engineFactsAhead`) once it has answered
 * the editor's `initialize`: the sandbox then runs in a process of its own while the agent's
 * bundle loads on this one, instead of after it, when `session/new` is already waiting
 * (docs/acp.md, "Start-up"). The starter requires the stdio starter's own bundle for it,
 * dist/child/turn-facts.cjs (src/server/turn-facts.ts `turnFactsOf`: the same candidates, the
 * same probe memo), only then. The first engine of the same workspace adopts them (sessions.ts),
 * as the stdio child adopts its starter's (ChildSandbox `adopt`): with the same inputs, so what
 * it does with its sandbox is what a probe of its own would have found. An engine of another
 * folder, and every later one, probes as before. When the probe memo answers for these inputs
 * (`facts.remembered`), nothing is started here: that engine answers from the memo and the real
 * run starts after the session's answer (server/handlers/sandbox-answer.ts, config-options.ts
 * `confirmSandbox`).
 */
export interface EngineFacts {
  /** The inputs they were found with: the agent's environment, MC_HOME and canonical cwd. */
  inputs: ChildInputs;
  facts: TurnFacts;
}

/** Where the functions that find them come from: dist/child/turn-facts.cjs, or the agent's own. */
export interface EngineFactsSource {
  childInputs(env: NodeJS.ProcessEnv): ChildInputs;
  turnFactsOf(inputs: ChildInputs): TurnFacts;
}

/**
 * The first engine's facts found with `source`, the agent's environment `env` (the very object
 * the agent's sessions get, which adoption compares); undefined where that fails (the engine
 * then finds out itself, as before).
 */
export function findEngineFacts(
  source: EngineFactsSource,
  env: NodeJS.ProcessEnv,
): EngineFacts | undefined {
  try {
    const inputs = source.childInputs(env);
    // Without the memo's answer (turnFactsOf has then started the probes), the sandbox runs
    // while the agent loads; with it, its spawn and its wait leave the path to the answer.
    return { inputs, facts: source.turnFactsOf(inputs) };
  } catch {
    return undefined;
  }
}

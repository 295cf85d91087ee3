import { checkpointsAvailability } from "../agent/checkpoints/availability.js";
import { keepOutOf } from "../agent/checkpoints/keep-out.js";
import { sandboxNetworkHint } from "../agent/sandbox/network-hint.js";
import { sandboxPolicy } from "../agent/sandbox/policy.js";
import { probeSandboxAsync } from "../agent/sandbox/probe.js";
import type { ChildInputs, TurnFacts } from "../server/engine-face.js";
import { storePaths } from "../store/store-paths.js";

/**
 * What the agent's first engine finds out at its `initialize` (its sandbox, by a real run of
 * it, and git), started by the ACP starter (starter.ts) once it has answered the editor's
 * `initialize`: the sandbox then runs in a process of its own while the agent's bundle loads on
 * this one, instead of after it, when `session/new` is already waiting (docs/acp.md,
 * "Start-up"). Bundled apart as dist/child/acp-engine-facts.cjs, which the starter requires only
 * then. The first engine of the same workspace adopts them (sessions.ts), as the stdio child
 * adopts its starter's (src/server/turn-facts.ts, ChildSandbox `adopt`): with the same inputs,
 * so what it does with its sandbox is what a probe of its own would have found. An engine of
 * another folder, and every later one, probes as before.
 */
export interface EngineFacts {
  /** The inputs they were found with: the agent's environment, MC_HOME and canonical cwd. */
  inputs: ChildInputs;
  facts: TurnFacts;
}

/**
 * Starts the sandbox's probes (each network setting the engine may validate, at once: the same
 * candidates as the stdio starter's) and finds git, with the agent's inputs.
 */
export function startEngineFacts(inputs: ChildInputs): EngineFacts {
  const networks = sandboxNetworkHint(inputs.home) ? [false, true] : [false];
  const probes = networks.map(async (network) => ({
    network,
    availability: await probeSandboxAsync(sandboxPolicy({ ...inputs, network }), inputs.env),
  }));
  const keepOut = keepOutOf(inputs.workspace, storePaths(inputs.home, inputs.env));
  const facts: TurnFacts = {
    checkpoints: checkpointsAvailability(inputs.env, keepOut),
    sandbox: Promise.all(probes),
    // Nothing is answered from them here: the engine's own initialize answers.
    proven: Promise.resolve(null),
  };
  facts.sandbox = facts.sandbox.then((probed) => {
    facts.probed = probed;
    return probed;
  });
  return { inputs, facts };
}

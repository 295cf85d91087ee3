import { realpathSync } from "node:fs";
import { checkpointsAvailability } from "../agent/checkpoints/availability.js";
import { keepOutOf } from "../agent/checkpoints/keep-out.js";
import { sandboxNetworkHint } from "../agent/sandbox/network-hint.js";
import { sandboxPolicy } from "../agent/sandbox/policy.js";
import { probeSandboxAsync, type SandboxProbe } from "../agent/sandbox/probe.js";
import type { TurnFactsSource } from "../boot/starter.js";
import type { CheckpointsAvailability } from "../protocol/schemas/checkpoints.js";
import { decodeSecrets } from "../protocol/secret-handoff.js";
import { resolveHome } from "../store/home.js";
import { storePaths } from "../store/store-paths.js";

/**
 * What an `initialize` negotiating `turn` names that the child finds out (the turn extension's
 * `sandbox` and `checkpoints`), found by the starter (starter.ts) with the child's own code and
 * inputs before the child has loaded: bundled into dist/child/turn-facts.cjs, which the starter
 * requires only for such an initialize. The child adopts what was found instead of finding it
 * again (ChildSandbox `adopt`, `childCheckpoints`), so what it does later is what the starter
 * answered.
 *
 * The sandbox's probe depends on one setting, `"sandbox": {"network": ...}` of MC_HOME/config.json,
 * which the child knows only once its schema has validated the file (an invalid file is ignored
 * whole). The raw file settles it when it does not say `true`: then the child's value is off,
 * valid file or not. When it says `true`, the sandbox is probed both ways: the answer is proven
 * only when both find the same sandbox, and the child takes the probe of the setting it validates.
 */
export interface TurnFacts extends TurnFactsSource {
  /** Git on PATH and a workspace outside mc's stores: found at once. */
  checkpoints: CheckpointsAvailability;
  /** Settles once every probe has ended (each in a process of its own); never rejects. */
  sandbox: Promise<readonly SandboxProbe[]>;
  /** The probes, once `sandbox` has settled: what the child adopts as they are. */
  probed?: readonly SandboxProbe[];
}

/** The inputs the child derives (src/server/stdio.ts `runStdio`), derived the same way. */
export interface ChildInputs {
  workspace: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The child's environment as `childEnvironment` (src/process/secret-env.ts) makes it, without
 * removing anything from process.env (the child does that), its canonical workspace and MC_HOME.
 */
export function childInputs(handedOver: string | null): ChildInputs {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(handedOver ? decodeSecrets(handedOver) : {}),
  };
  return { workspace: realpathSync(process.cwd()), home: resolveHome(env), env };
}

/**
 * Starts the sandbox's probes (each candidate network setting at once) and finds git, with the
 * inputs the child will have. Throws only where the child's own start would (no workspace).
 */
export function startTurnFacts(handedOver: string | null): TurnFacts {
  const inputs = childInputs(handedOver);
  const networks = sandboxNetworkHint(inputs.home) ? [false, true] : [false];
  const probes = networks.map(async (network) => ({
    network,
    availability: await probeSandboxAsync(sandboxPolicy({ ...inputs, network }), inputs.env),
  }));
  const keepOut = keepOutOf(inputs.workspace, storePaths(inputs.home, inputs.env));
  const checkpoints = checkpointsAvailability(inputs.env, keepOut);
  const facts: TurnFacts = {
    checkpoints,
    sandbox: Promise.all(probes),
    proven: Promise.resolve(null),
  };
  facts.sandbox = facts.sandbox.then((probed) => {
    facts.probed = probed;
    return probed;
  });
  facts.proven = facts.sandbox.then((probed) => provenTurnExtras(probed, checkpoints));
  return facts;
}

/** Whether what the starter handed over is this module's (it travels typed as the starter's). */
export function isTurnFacts(source: TurnFactsSource): source is TurnFacts {
  return "checkpoints" in source && "sandbox" in source;
}

/**
 * The turn extension's found-out parameters when they are proven to be the child's: every
 * probe the child may adopt (one per network setting it may validate) found the same sandbox.
 * Null otherwise: the child answers then, with the probe of the setting it validated.
 */
function provenTurnExtras(
  probed: readonly SandboxProbe[],
  checkpoints: CheckpointsAvailability,
): Record<string, object> | null {
  const kinds = new Set(probed.map((probe) => probe.availability.sandbox));
  const [kind] = kinds;
  if (kinds.size !== 1 || kind === undefined) return null;
  return { turn: { sandbox: kind, checkpoints } };
}

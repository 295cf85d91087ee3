import { realpathSync } from "node:fs";
import { checkpointsAvailability } from "../agent/checkpoints/availability.js";
import { keepOutOf } from "../agent/checkpoints/keep-out.js";
import { HOME_MARK, type Place, WORKSPACE_MARK } from "../agent/sandbox/marked-paths.js";
import { sandboxNetworkHint } from "../agent/sandbox/network-hint.js";
import { canonical, sandboxPolicy } from "../agent/sandbox/policy.js";
import { planProbe, type SandboxKind, type SandboxProbe } from "../agent/sandbox/probe.js";
import {
  findProbeMemo,
  type MemoFound,
  type MemoKinds,
  writeProbeMemo,
} from "../agent/sandbox/probe-memo.js";
import { type ProbeMemoKey, probeMemoKey } from "../agent/sandbox/probe-memo-key.js";
import { privateCacheRoot } from "../boot/compile-cache.js";
import type { TurnFactsSource } from "../boot/starter.js";
import type { CheckpointsAvailability } from "../protocol/schemas/checkpoints.js";
import { withHandedOver } from "../protocol/secret-handoff.js";
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
 *
 * The probe memo (src/agent/sandbox/probe-memo.ts): when the private cache's sandbox-probe.json holds
 * what the last real probe of these very runs on this very host found, `remembered` says it and
 * the starter answers with it at once, then starts the probes (`run`); the child adopts the real
 * probes as always (a `sandboxed` turn waits for them), and the memo is rewritten whenever they
 * find something else.
 */
export interface TurnFacts extends TurnFactsSource {
  /** Git on PATH and a workspace outside mc's stores: found at once. */
  checkpoints: CheckpointsAvailability;
  /**
   * Settles once every probe has ended (each in a process of its own) and the memo has been
   * written; never rejects. Reading it starts the probes if `run` has not.
   */
  readonly sandbox: Promise<readonly SandboxProbe[]>;
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
 * The child's inputs for its environment `env`: its canonical workspace and MC_HOME. The stdio
 * starter gives it the environment `childEnvironment` (src/process/secret-env.ts) makes, without
 * removing anything from process.env (the child does that); the ACP starter, the agent's own.
 */
export function childInputs(env: NodeJS.ProcessEnv): ChildInputs {
  return { workspace: realpathSync(process.cwd()), home: resolveHome(env), env };
}

/**
 * Plans the sandbox's probes (each candidate network setting), finds git and reads the probe
 * memo, with the inputs the child will have; starts the probes at once unless the memo answers
 * (then `run` starts them). Throws only where the child's own start would (no workspace).
 */
export function startTurnFacts(handedOver: string | null): TurnFacts {
  return turnFactsOf(childInputs(withHandedOver(process.env, handedOver)));
}

/**
 * The same with inputs given: the ACP starter's, for the agent's first engine (src/acp/starter.ts
 * `engineFactsAhead`), whose credential variables have already left process.env.
 */
export function turnFactsOf(inputs: ChildInputs): TurnFacts {
  const networks = sandboxNetworkHint(inputs.home) ? [false, true] : [false];
  const plans = networks.map((network) => ({
    network,
    plan: planProbe(sandboxPolicy({ ...inputs, network }), inputs.env),
  }));
  const planned = plans.flatMap(({ network, plan }) =>
    plan.first === null ? [] : [{ network, run: plan.first }],
  );
  // Only a probe that runs the sandbox is waited for: one decided before any run needs no memo.
  const key = planned.length === plans.length ? probeMemoKey(planned, places(inputs)) : null;
  // This user's private cache folder, beside the code caches: never MC_HOME (probe-memo.ts).
  const memoFolder = key === null ? null : privateCacheRoot();
  const found = memoFolder === null || key === null ? null : findProbeMemo(memoFolder, key);
  const memo = found?.kinds ?? null;
  let probes: Promise<readonly SandboxProbe[]> | null = null;
  let sandbox: Promise<readonly SandboxProbe[]> | null = null;
  const probesOnce = () =>
    (probes ??= Promise.all(
      plans.map(async ({ network, plan }) => ({ network, availability: await plan.run() })),
    ).then((probed) => {
      facts.probed = probed;
      return probed;
    }));
  // The memo is written once what waits for `proven` (the starter's answer) has run: a
  // frontend's wait is not made longer by a file it never reads.
  const run = () =>
    (sandbox ??= probesOnce().then(async (probed) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (memoFolder !== null && key !== null) rememberProbes(memoFolder, key, found, probed);
      return probed;
    }));
  // Without a memo's answer, the sandbox runs while git is found.
  if (memo === null || oneKind(memo) === undefined) run();
  const keepOut = keepOutOf(inputs.workspace, storePaths(inputs.home, inputs.env));
  const checkpoints = checkpointsAvailability(inputs.env, keepOut);
  const facts: TurnFacts = {
    checkpoints,
    remembered: memo === null ? null : provenExtras(memo, checkpoints),
    run,
    get sandbox() {
      return run();
    },
    get proven() {
      run();
      return probesOnce().then((probed) => provenTurnExtras(probed, checkpoints));
    },
  };
  return facts;
}

/** The probe's own folders, which the memo's key names by marks (probe-memo-key.ts). */
function places(inputs: ChildInputs): Place[] {
  return [
    { mark: WORKSPACE_MARK, path: inputs.workspace },
    { mark: HOME_MARK, path: canonical(inputs.home) },
  ];
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
  return provenExtras(kindsOf(probed), checkpoints);
}

/** The same from what each probe found (the probes' or the memo's). */
function provenExtras(
  found: readonly (SandboxKind | null)[],
  checkpoints: CheckpointsAvailability,
): Record<string, object> | null {
  const kind = oneKind(found);
  return kind === undefined ? null : { turn: { sandbox: kind, checkpoints } };
}

/** The sandbox every probe found, or undefined when they differ. */
function oneKind(found: readonly (SandboxKind | null)[]): SandboxKind | null | undefined {
  const kinds = new Set(found);
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

function kindsOf(probed: readonly SandboxProbe[]): MemoKinds {
  return probed.map((probe) => probe.availability.sandbox);
}

/**
 * Rewrites the memo when the real probes found other than it said, it said nothing, or its
 * entry was not the first: one used again goes first, so that the sixteen kept are the latest
 * used, not the latest probed (a workspace a user comes back to is never pushed out by others).
 */
function rememberProbes(
  folder: string,
  key: ProbeMemoKey,
  found: MemoFound | null,
  probed: readonly SandboxProbe[],
): void {
  const kinds = kindsOf(probed);
  if (found?.first && JSON.stringify(found.kinds) === JSON.stringify(kinds)) return;
  writeProbeMemo(folder, key, kinds);
}

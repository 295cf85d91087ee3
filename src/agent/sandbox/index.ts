/**
 * The OS sandbox of the `sandboxed` permission level (docs/tools.md, "The sandbox"): found out
 * once per child by a real run (probe.ts), then used to launch every sandboxed shell command.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSettings } from "../../store/settings.js";
import { bwrapArgs } from "./bwrap.js";
import { GitDirFinder, outermost } from "./git-dirs.js";
import { type PolicyInputs, type SandboxPolicy, sandboxPolicy } from "./policy.js";
import {
  probeSandbox,
  probeSandboxAsync,
  type SandboxAvailability,
  type SandboxKind,
  type SandboxProbe,
  unavailable,
  unavailableMessage,
} from "./probe.js";
import { SandboxRefusal } from "./refusal.js";
import { seatbeltArgs, seatbeltProfile } from "./seatbelt.js";

export type { SandboxAvailability, SandboxKind, SandboxProbe, SandboxProblem } from "./probe.js";
export { unavailableMessage } from "./probe.js";
export { SandboxRefusal } from "./refusal.js";

/** How a command's argv is started inside the sandbox. */
interface SandboxLaunch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Called once the command's processes are gone. */
  done(): void;
}

export interface Sandbox {
  kind: SandboxKind;
  network: boolean;
  /**
   * How to start `argv` in the sandbox, once what it keeps read-only is found (git-dirs.ts):
   * rejects with a SandboxRefusal when it will not start it (nothing ran), or with the
   * signal's reason once that is aborted.
   */
  launch(
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
    signal?: AbortSignal,
  ): Promise<SandboxLaunch>;
}

/** Probes made before a child loaded, ended or still running. */
type AdoptedProbes = readonly SandboxProbe[] | Promise<readonly SandboxProbe[]>;

/**
 * A child's sandbox: probed once, the answer kept for the child's life. The child starts the
 * probe in the background when it starts (`start`) and its `initialize` awaits it; `doctor`
 * and a use before any start probe synchronously. The child may start it before its settings
 * are validated, on the network setting they most likely hold (network-hint.ts), then confirm
 * that setting: a probe made with another one is dropped and made again.
 */
export class ChildSandbox {
  private probed: { availability: SandboxAvailability; sandbox: Sandbox | null } | null = null;
  private probing: Promise<void> | null = null;
  /** Probes made before this child loaded, as they are, still running or yet to start (`adopt`). */
  private adopted: AdoptedProbes | (() => AdoptedProbes) | null = null;

  constructor(private inputs: PolicyInputs) {}

  /**
   * What the starter probed with this child's own inputs under each network setting
   * (src/server/turn-facts.ts), ended or still running: taken as this child's probe of that
   * setting, never made again, so what the child does with its sandbox is what the starter's
   * answer said. A setting it did not probe is probed here as before. A function starts them
   * when this sandbox is first started (`start`), not before.
   */
  adopt(probes: AdoptedProbes | (() => AdoptedProbes)): void {
    this.adopted = probes;
  }

  /** Starts the probe without blocking the event loop (once); settles when it is known. */
  start(): Promise<void> {
    this.takeAdopted();
    if (this.probing === null) {
      const inputs = this.inputs;
      this.probing = this.adoptedOrProbed(inputs).then((availability) => {
        // A probe of inputs since replaced (confirmNetwork) says nothing about these.
        if (this.inputs === inputs)
          this.probed ??= { availability, sandbox: sandboxOf(availability, inputs) };
      });
    }
    return this.probing;
  }

  /**
   * The validated network setting: when it is not the one the sandbox was made with, what was
   * probed with that one is forgotten, and a probe already started is started again.
   */
  confirmNetwork(network: boolean): void {
    if (network === this.inputs.network) return;
    this.inputs = { ...this.inputs, network };
    this.probed = null;
    const started = this.probing !== null;
    this.probing = null;
    if (started) void this.start();
  }

  availability(): SandboxAvailability {
    return this.probe().availability;
  }

  /** The sandbox, or null when none can start (the availability says why). */
  sandbox(): Sandbox | null {
    return this.probe().sandbox;
  }

  /** An ended adopted probe of the current network setting, when nothing is known yet. */
  private takeAdopted(): void {
    if (this.probed !== null || !Array.isArray(this.adopted)) return;
    const availability = ofNetwork(this.adopted, this.inputs.network);
    if (availability === undefined) return;
    this.probed = { availability, sandbox: sandboxOf(availability, this.inputs) };
    this.probing = Promise.resolve();
  }

  /** The adopted probe of `inputs`' network setting once it has ended, or a probe of its own. */
  private async adoptedOrProbed(inputs: PolicyInputs): Promise<SandboxAvailability> {
    const source = typeof this.adopted === "function" ? this.adopted() : this.adopted;
    const adopted = source === null ? undefined : ofNetwork(await source, inputs.network);
    return adopted ?? probeSandboxAsync(sandboxPolicy(inputs), inputs.env);
  }

  private probe() {
    this.takeAdopted();
    if (this.probed === null) {
      const availability = probeSandbox(sandboxPolicy(this.inputs), this.inputs.env);
      this.probed = { availability, sandbox: sandboxOf(availability, this.inputs) };
    }
    return this.probed;
  }
}

/**
 * For `mc-agent doctor`: whether the sandbox of the `sandboxed` level can start for this
 * workspace, MC_HOME and environment (with the network setting of MC_HOME/config.json), by the
 * same real run a child makes; when not, why and how to fix it.
 */
export function sandboxAvailability(
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv,
): SandboxAvailability {
  const network = loadSettings(home, workspace).global.sandbox?.network === true;
  return new ChildSandbox({ workspace, home, env, network }).availability();
}

function ofNetwork(
  probes: readonly SandboxProbe[],
  network: boolean,
): SandboxAvailability | undefined {
  return probes.find((probe) => probe.network === network)?.availability;
}

function sandboxOf(availability: SandboxAvailability, inputs: PolicyInputs): Sandbox | null {
  const program = availability.program;
  if (availability.sandbox === null || program === null) return null;
  const finder = new GitDirFinder(inputs.workspace);
  // The policy is taken again per command: a `.git` made since the last one is protected too.
  const policy = async (signal?: AbortSignal): Promise<SandboxPolicy> => {
    const base = sandboxPolicy(inputs);
    // The probe refused such a workspace; its paths are looked at again all the same.
    if (base.tooWide)
      throw new SandboxRefusal(unavailableMessage(unavailable("workspace_too_wide", null)));
    const nested = await finder.find(signal);
    return { ...base, readOnly: outermost([...base.readOnly, ...nested]) };
  };
  if (availability.sandbox === "bubblewrap") {
    return {
      kind: "bubblewrap",
      network: inputs.network,
      launch: async (argv, env, signal) => ({
        file: program,
        args: bwrapArgs(await policy(signal), argv, availability.bwrap),
        env,
        done() {},
      }),
    };
  }
  return {
    kind: "seatbelt",
    network: inputs.network,
    async launch(argv, env, signal) {
      const confined = await policy(signal);
      // No mount namespace on macOS: the private temp folder is a fresh one per command.
      const privateTmp = mkdtempSync(join(tmpdir(), "mc-sandbox-"));
      return {
        file: program,
        args: seatbeltArgs(seatbeltProfile(confined, privateTmp), argv),
        env: { ...env, TMPDIR: privateTmp },
        done() {
          try {
            rmSync(privateTmp, { recursive: true, force: true });
          } catch {
            // what a command left there unremovable stays in the system's temp folder
          }
        },
      };
    },
  };
}

/**
 * Can an OS sandbox start here? Found out by running it once, with the exact flags a command
 * will get, on a no-op shell command: no guess from the kernel version or a sysctl can tell
 * a container without the privileges from a machine with them. When none can start, why and
 * how to fix it, as fixed sentences (no path: they travel in the `sandbox_unavailable` error).
 */
import { accessSync, constants } from "node:fs";
import { findOnPath } from "../tools/find-on-path.js";
import { shellProgram } from "../tools/shell-process.js";
import { type BwrapOptions, bwrapArgs } from "./bwrap.js";
import type { SandboxPolicy } from "./policy.js";
import { SANDBOX_EXEC, seatbeltArgs, seatbeltProfile } from "./seatbelt.js";

export type SandboxKind = "bubblewrap" | "seatbelt";

export type SandboxProblem =
  | "not_installed"
  | "user_namespaces"
  | "no_privileges"
  | "unsupported_platform"
  | "workspace_too_wide"
  | "failed";

export interface SandboxAvailability {
  /** The sandbox that starts, or null. */
  sandbox: SandboxKind | null;
  /** Why none starts (null when one does). */
  problem: SandboxProblem | null;
  /** A sentence saying why; no path, safe for the wire. */
  reason: string | null;
  /** A sentence saying how to fix it; no path, safe for the wire. */
  fix: string | null;
  /** The sandbox's own first error line, for `mc-agent doctor` only: it may name a path. */
  detail: string | null;
  /** The program that runs the sandbox (bwrap as found on PATH), when one starts. */
  program: string | null;
  /** bubblewrap's flags that depend on its version. */
  bwrap: BwrapOptions;
}

/** One probe's outcome under one network setting (the starter's, src/server/turn-facts.ts). */
export interface SandboxProbe {
  network: boolean;
  availability: SandboxAvailability;
}

/** A probe that hangs (a stuck mount) is given up after this long: no sandbox then. */
const PROBE_TIMEOUT_MS = 10_000;
/** How much of the sandbox's error output the probe keeps. */
const DETAIL_CHARS = 300;
/** How much of its error output the asynchronous probe reads before it stops keeping more. */
const STDERR_KEPT = 16 * 1024;

const TEXT: Record<SandboxProblem, { reason: string; fix: string }> = {
  not_installed: {
    reason: "bubblewrap (bwrap) is not installed or not on PATH",
    fix:
      "install the bubblewrap package (Debian, Ubuntu: apt-get install bubblewrap; " +
      "Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)",
  },
  user_namespaces: {
    reason: "the kernel does not let this user create user namespaces, which bubblewrap needs",
    fix:
      "allow unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 " +
      "(Debian before 11), sysctl -w user.max_user_namespaces=15000, or on Ubuntu 23.10 and " +
      "later an AppArmor profile for bwrap (or sysctl -w " +
      "kernel.apparmor_restrict_unprivileged_userns=0); in a container the host must allow it",
  },
  no_privileges: {
    reason:
      "bubblewrap is not permitted to create namespaces here (a container without the privileges?)",
    fix:
      "give the container the right to create namespaces (for Docker: --security-opt " +
      "seccomp=unconfined --security-opt apparmor=unconfined, or --privileged), or choose " +
      "another permission level",
  },
  unsupported_platform: {
    reason: "mc-agent has no OS sandbox for this platform (only Linux and macOS)",
    fix: "choose another permission level (ask, accept_edits or full_access)",
  },
  workspace_too_wide: {
    reason:
      "the workspace is the filesystem root, the home folder, or a folder holding the home " +
      "folder, MC_HOME or a credential folder; the sandbox keeps only the workspace writable, " +
      "so it would leave those writable too",
    fix: "open a project folder inside it as the workspace, or choose another permission level",
  },
  failed: {
    reason: "the OS sandbox failed to start",
    fix: "run mc-agent doctor to see the sandbox's own error",
  },
};

/**
 * The probe without blocking the event loop (the child's, started when it starts and awaited
 * by `initialize`): the sandbox runs as a child process of its own. Settles, never rejects,
 * within PROBE_TIMEOUT_MS a run.
 */
export function probeSandboxAsync(
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxAvailability> {
  return planProbe(policy, env, platform).run();
}

/**
 * A probe decided up to its first run, which has not started: what it will run (the probe
 * memo's key, probe-memo-key.ts), and `run`, which runs it (once) and settles as
 * `probeSandboxAsync` does.
 */
export interface ProbePlan {
  /** The sandbox's first run, or null when the outcome is known without one. */
  first: RunRequest | null;
  run(): Promise<SandboxAvailability>;
}

export function planProbe(
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): ProbePlan {
  const steps = probeSteps(policy, env, platform);
  const step = steps.next();
  let running: Promise<SandboxAvailability> | null = null;
  const drive = async (): Promise<SandboxAvailability> => {
    let next = step;
    while (!next.done) next = steps.next(await runAsync(next.value));
    return next.value;
  };
  return {
    first: step.done ? null : step.value,
    run: () => {
      running ??= drive();
      return running;
    },
  };
}

/** Runs the sandbox once under `policy` on this platform and says whether it started. */
export function probeSandbox(
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): SandboxAvailability {
  const steps = probeSteps(policy, env, platform);
  let step = steps.next();
  while (!step.done) step = steps.next(runSync(step.value));
  return step.value;
}

interface ProbeRun {
  ok: boolean;
  stderr: string;
}

/** One run of the sandbox on the no-op command, in the workspace. */
export interface RunRequest {
  program: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The probe's decisions, written once for both drivers: yields each run, gets its outcome. */
function* probeSteps(
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Generator<RunRequest, SandboxAvailability, ProbeRun> {
  const noop = [shellProgram(env), "-c", ":"];
  const request = (program: string, args: string[]) => ({
    program,
    args,
    cwd: policy.workspace,
    env,
  });
  // Refused before anything runs: no sandbox can keep what such a workspace holds.
  if ((platform === "linux" || platform === "darwin") && policy.tooWide)
    return unavailable("workspace_too_wide", null);
  if (platform === "linux") {
    const bwrap = findOnPath("bwrap", env);
    if (bwrap === null) return unavailable("not_installed", null);
    const modern = { disableUserns: true };
    const first = yield request(bwrap, bwrapArgs(policy, noop, modern));
    // Before 0.8 there is no --disable-userns: the sandbox goes without that second wall.
    if (!first.ok && /Unknown option.*disable-userns/.test(first.stderr)) {
      const older = { disableUserns: false };
      const second = yield request(bwrap, bwrapArgs(policy, noop, older));
      return judge(second, "bubblewrap", bwrap, older);
    }
    return judge(first, "bubblewrap", bwrap, modern);
  }
  if (platform === "darwin") {
    try {
      accessSync(SANDBOX_EXEC, constants.X_OK);
    } catch {
      return unavailable("failed", "sandbox-exec is missing");
    }
    const profile = seatbeltProfile(policy, policy.workspace);
    return judge(
      yield request(SANDBOX_EXEC, seatbeltArgs(profile, noop)),
      "seatbelt",
      SANDBOX_EXEC,
    );
  }
  return unavailable("unsupported_platform", null);
}

/**
 * node:child_process, loaded at the first run, not with this module: the starter requires this
 * module for an initialize negotiating `turn` and may answer it from the probe memo before any
 * run, without the 3-5 ms that loading child_process takes (docs/benchmarks.md).
 */
function childProcess(): typeof import("node:child_process") {
  return process.getBuiltinModule("node:child_process");
}

function runSync(run: RunRequest): ProbeRun {
  const result = childProcess().spawnSync(run.program, run.args, {
    cwd: run.cwd,
    env: run.env,
    stdio: ["ignore", "ignore", "pipe"],
    timeout: PROBE_TIMEOUT_MS,
    killSignal: "SIGKILL",
    encoding: "utf8",
  });
  if (result.error) return { ok: false, stderr: result.error.message };
  return { ok: result.status === 0, stderr: result.stderr ?? "" };
}

function runAsync(run: RunRequest): Promise<ProbeRun> {
  const { spawn } = childProcess();
  return new Promise((resolve) => {
    let stderr = "";
    let settled = false;
    const settle = (outcome: ProbeRun) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const proc = spawn(run.program, run.args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: PROBE_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => {
      // Only the first line is kept (DETAIL_CHARS of it): the rest is not held.
      if (stderr.length < STDERR_KEPT) stderr += chunk;
    });
    proc.on("error", (error) => settle({ ok: false, stderr: error.message }));
    proc.on("close", (code) => settle({ ok: code === 0, stderr }));
  });
}

function judge(
  probe: ProbeRun,
  kind: SandboxKind,
  program: string,
  bwrap: BwrapOptions = { disableUserns: false },
): SandboxAvailability {
  if (probe.ok)
    return { sandbox: kind, problem: null, reason: null, fix: null, detail: null, program, bwrap };
  const detail = firstLine(probe.stderr);
  return unavailable(kind === "bubblewrap" ? classifyBwrapError(detail) : "failed", detail);
}

/** What bwrap's error line says went wrong (its messages as of bubblewrap 0.4 to 0.11). */
export function classifyBwrapError(line: string): SandboxProblem {
  if (/Unknown option/.test(line)) return "failed";
  if (/userns|user namespace|max_\S*namespaces|uid map|gid map|No permissions to creat/i.test(line))
    return "user_namespaces";
  if (/Operation not permitted|Permission denied|EPERM|EACCES/i.test(line)) return "no_privileges";
  return "failed";
}

export function unavailable(problem: SandboxProblem, detail: string | null): SandboxAvailability {
  return {
    sandbox: null,
    problem,
    ...TEXT[problem],
    detail,
    program: null,
    bwrap: { disableUserns: false },
  };
}

/** The `sandbox_unavailable` message: why and how to fix it, never a path. */
export function unavailableMessage(availability: SandboxAvailability): string {
  const text = TEXT[availability.problem ?? "failed"];
  return `No OS sandbox can start: ${text.reason}. To fix it: ${text.fix}.`;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return line.trim().slice(0, DETAIL_CHARS);
}

/**
 * What the outcome of the sandbox's probe depends on, as one value (the probe memo's key,
 * probe-memo.ts; docs/tools.md, "Found out once per child"): the exact runs the probe would make
 * (program, arguments, folder: the policy as the sandbox gets it), the identity of each program
 * run (a bwrap replaced, upgraded or made setuid is another one), and the host facts that decide
 * whether a user namespace can be made: the boot (the sysctls and the AppArmor profiles reset
 * with it), the user namespace this process is in, its uid and gid, the user-namespace sysctls
 * there are, and the seccomp and no_new_privs state it runs under; on macOS the OS release.
 * Anything not readable is recorded as null: a fact that cannot be read now and could before is
 * a change too.
 */
import { readFileSync, readlinkSync, statSync } from "node:fs";
import { release } from "node:os";
import { type MarkedPlace, markPlaces, type Place, type RunPaths } from "./marked-paths.js";
import type { RunRequest } from "./probe.js";

/** One candidate network setting's first run (probe.ts `planProbe`). */
export interface PlannedRun {
  network: boolean;
  run: RunRequest;
}

export interface ProbeMemoKey {
  platform: NodeJS.Platform;
  runs: { network: boolean; program: string; args: string[]; cwd: string }[];
  /** Per run: the program's identity, null when it cannot be stat'ed. */
  programs: (ProgramIdentity | null)[];
  host: HostFacts;
  /** The places the runs name by a mark (marked-paths.ts), with what stands in for their path. */
  marked: MarkedPlace[];
}

export interface ProgramIdentity {
  dev: string;
  ino: string;
  size: string;
  mode: number;
  uid: number;
  mtime_ns: string;
  ctime_ns: string;
}

export interface HostFacts {
  boot_id: string | null;
  user_namespace: string | null;
  /** The mount namespace: the workspace's mount ID and line are this namespace's. */
  mount_namespace: string | null;
  uid: number | null;
  gid: number | null;
  /** Each of the user-namespace sysctls (USERNS_SYSCTLS) by name: its value, null if absent. */
  sysctls: Record<string, string | null>;
  /** /proc/self/status's Seccomp, Seccomp_filters and NoNewPrivs lines, as they are. */
  confinement: string[] | null;
  /** The OS release (uname -r; on macOS the Darwin version, which names the OS version). */
  os_release: string;
}

/** Where Linux says whether an unprivileged process may make user namespaces. */
export const USERNS_SYSCTLS = [
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
] as const;

/** The /proc/self/status fields that restrict what a process may do to itself. */
const CONFINEMENT_FIELDS = /^(Seccomp|Seccomp_filters|NoNewPrivs):/;

/**
 * The key for these planned runs on this host; `places` are the probe's own folders (the
 * workspace, MC_HOME), named in the runs by their marks where they can be (marked-paths.ts).
 */
export function probeMemoKey(
  planned: readonly PlannedRun[],
  places: readonly Place[] = [],
  platform: NodeJS.Platform = process.platform,
): ProbeMemoKey {
  const { runs, marked } = markPlaces(
    planned.map(({ run }) => ({ args: run.args, cwd: run.cwd })),
    platform === "linux" ? places : [],
  );
  return {
    platform,
    runs: planned.map(({ network, run }, at) => ({
      network,
      program: run.program,
      ...(runs[at] as RunPaths),
    })),
    programs: planned.map(({ run }) => programIdentity(run.program)),
    host: hostFacts(platform),
    marked,
  };
}

export function programIdentity(path: string): ProgramIdentity | null {
  try {
    const stat = statSync(path, { bigint: true });
    return {
      dev: String(stat.dev),
      ino: String(stat.ino),
      size: String(stat.size),
      mode: Number(stat.mode),
      uid: Number(stat.uid),
      mtime_ns: String(stat.mtimeNs),
      ctime_ns: String(stat.ctimeNs),
    };
  } catch {
    return null;
  }
}

export function hostFacts(platform: NodeJS.Platform = process.platform): HostFacts {
  const linux = platform === "linux";
  const sysctls: Record<string, string | null> = {};
  if (linux) for (const path of USERNS_SYSCTLS) sysctls[path] = readTrimmed(path);
  return {
    boot_id: linux ? readTrimmed("/proc/sys/kernel/random/boot_id") : null,
    user_namespace: linux ? readLink("/proc/self/ns/user") : null,
    mount_namespace: linux ? readLink("/proc/self/ns/mnt") : null,
    uid: process.getuid?.() ?? null,
    gid: process.getgid?.() ?? null,
    sysctls,
    confinement: linux ? confinement() : null,
    os_release: release(),
  };
}

function confinement(): string[] | null {
  const status = readTrimmed("/proc/self/status");
  if (status === null) return null;
  return status.split("\n").filter((line) => CONFINEMENT_FIELDS.test(line));
}

/** A small /proc file's text, trimmed; null when it is not there or not readable. */
function readTrimmed(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

function readLink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/**
 * Workspace trust (docs/trust.md): a project's `.mc/config.json` may name code to run (`hooks`,
 * `mcp_servers`); none of it runs until the user trusts that workspace for exactly those members.
 * The trust is a hash of the two members in canonical JSON, kept under MC_HOME per canonical
 * workspace (store/trust-file.ts): a new hook or server changes the hash and asks again.
 *
 * `projectTrust` is synchronous: it reads one small file with the store's synchronous safe read
 * (O_NOFOLLOW, O_NONBLOCK, fstat, bounded), as the settings are read at child start. A child
 * calls it once, when it starts, with the project config it read then: like the settings, the
 * trust a child runs with is fixed for its life (`configuration_reload: "restart_child"`).
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { RenameGate } from "../store/atomic-write.js";
import { projectIsGlobal } from "../store/settings.js";
import {
  readTrustRecord,
  removeTrustRecord,
  TrustUnavailable,
  writeTrustRecord,
} from "../store/trust-file.js";
import { canonicalJson } from "./canonical-json.js";

export { TrustUnavailable };

/** The members of a project's `.mc/config.json` that run code, as written in the file. */
export interface ProjectCode {
  hooks?: unknown;
  mcp_servers?: unknown;
}

/**
 * `trusted`: the project file runs nothing, or the user trusted exactly its current members, or
 * its `.mc` folder is MC_HOME (the home folder with the default MC_HOME: the file is the global
 * one, which needs no trust).
 * `untrusted`: it names code and was never trusted (or the trust was revoked).
 * `changed`: it was trusted, but its `hooks` or `mcp_servers` changed since.
 */
export type ProjectTrust = "trusted" | "untrusted" | "changed";

/**
 * The trust of `workspace` for `projectConfig` (its `hooks` and `mcp_servers` as read from the
 * file; key order and spacing do not matter). Never throws for a damaged or unsafe record: that
 * is no trust.
 */
export function projectTrust(
  mcHome: string,
  workspace: string,
  projectConfig: ProjectCode,
): ProjectTrust {
  const canonical = canonicalWorkspace(workspace);
  if (projectIsGlobal(mcHome, canonical)) return "trusted";
  if (!runsCode(projectConfig)) return "trusted";
  const record = readTrustRecord(mcHome, canonical);
  if (record === null) return "untrusted";
  return record.hash === trustHash(projectConfig) ? "trusted" : "changed";
}

/** SHA-256 (hex) of `{"hooks":…,"mcp_servers":…}` in canonical JSON (absent members are null). */
export function trustHash(projectConfig: ProjectCode): string {
  const members = {
    hooks: projectConfig.hooks ?? null,
    mcp_servers: projectConfig.mcp_servers ?? null,
  };
  return createHash("sha256").update(canonicalJson(members)).digest("hex");
}

/** What a project file would run: whether it has hooks, and its MCP servers' names. */
export function waitingCode(projectConfig: ProjectCode): { hooks: boolean; mcp_servers: string[] } {
  return {
    hooks: !isEmpty(projectConfig.hooks),
    mcp_servers: memberNames(projectConfig.mcp_servers),
  };
}

/** Whether the project file names any code to run (an empty object names none). */
export function runsCode(projectConfig: ProjectCode): boolean {
  return !isEmpty(projectConfig.hooks) || !isEmpty(projectConfig.mcp_servers);
}

/** Trusts `workspace` for exactly these members (an atomic write; `gate` wraps the rename). */
export async function trustWorkspace(
  mcHome: string,
  workspace: string,
  projectConfig: ProjectCode,
  gate?: RenameGate,
  now = new Date(),
): Promise<void> {
  const record = {
    version: 1 as const,
    workspace: canonicalWorkspace(workspace),
    hash: trustHash(projectConfig),
    trusted_at: now.toISOString(),
  };
  await writeTrustRecord(mcHome, record, gate);
}

/** Forgets the trust of `workspace` (nothing to forget is not an error). */
export function revokeWorkspaceTrust(
  mcHome: string,
  workspace: string,
  gate?: RenameGate,
): Promise<void> {
  return removeTrustRecord(mcHome, canonicalWorkspace(workspace), gate);
}

/** The workspace as the child names it: its real path (the path as given when it is gone). */
export function canonicalWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return resolve(workspace);
  }
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

function memberNames(value: unknown): string[] {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.keys(value)
    : [];
}

/**
 * What the OS sandbox of the `sandboxed` level allows (docs/tools.md, "The sandbox"), as paths:
 * the one writable tree (the workspace), the parts of it kept read-only (`.git`, `.mc`), what is
 * hidden (MC_HOME, the folders of the Codex and Claude credential files) and whether the network
 * is on. Both backends (bwrap.ts, seatbelt.ts) build their arguments from this one value.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { credentialPaths } from "../../store/credential-paths.js";

export interface SandboxPolicy {
  /** The canonical workspace: writable. */
  workspace: string;
  /** Existing folders or files inside the workspace that stay read-only (`.git`, `.mc`). */
  readOnly: string[];
  /** Existing folders replaced by an empty read-only one (MC_HOME, ~/.codex, ~/.claude). */
  hiddenFolders: string[];
  /** Existing files that read as empty: credential files a hidden folder does not cover. */
  hiddenFiles: string[];
  /**
   * Folders inside a hidden one that stay readable (never writable): the user's skills
   * (MC_HOME/skills, ~/.claude/skills, ~/.codex/skills; docs/skills.md), each a real folder
   * at its own place that holds nothing hidden.
   */
  keptUnderHidden?: string[];
  /**
   * Folders of the host's Unix sockets, replaced by an empty private one: `/run` (the system
   * bus, the Docker daemon, databases, the user's runtime folder), and `/var/run` where it is a
   * folder of its own rather than a link to `/run`.
   */
  socketFolders: string[];
  /** Folders under those kept (read-only): the resolver's, when the network is on. */
  keptUnderSockets: string[];
  network: boolean;
  /**
   * The workspace is `/`, or is or holds the user's home folder, MC_HOME or a credential
   * folder: no sandbox is offered for it (probe.ts), since the one writable tree would hold
   * what the sandbox exists to keep: the shell's start-up files, the store's config (which
   * names the commands of MCP servers), the credential folders' own config. Hiding a folder
   * below the workspace is no answer: a command may rename a folder above it and make a new
   * one in its place.
   */
  tooWide: boolean;
}

export interface PolicyInputs {
  /** The canonical workspace (the child's realpath cwd). */
  workspace: string;
  /** MC_HOME. */
  home: string;
  /** The child's environment: HOME, CODEX_HOME and CLAUDE_CONFIG_DIR place the credential files. */
  env: NodeJS.ProcessEnv;
  /** `"sandbox": {"network": true}` in the user's config. */
  network: boolean;
}

/**
 * The workspace's own folders a command may read but never change, at its top (the probe's
 * run uses these; each command adds every `.git` below, git-dirs.ts).
 */
const READ_ONLY_NAMES = [".git", ".mc"] as const;

export function sandboxPolicy(inputs: PolicyInputs): SandboxPolicy {
  const workspace = inputs.workspace;
  const readOnly: string[] = [];
  for (const name of READ_ONLY_NAMES) {
    const path = join(workspace, name);
    // A symlink is left alone here (a mount would land on its target): the walk before each
    // command (git-dirs.ts) keeps its target read-only when that lies in the workspace.
    if (kindOf(path, false) !== null) readOnly.push(path);
  }
  const credentials = credentialPaths(inputs.home, inputs.env);
  const hiddenFolders = new Set<string>();
  const hiddenFiles = new Set<string>();
  for (const folder of [
    inputs.home,
    dirname(credentials.codexAuth),
    dirname(credentials.claudeCredentials),
  ]) {
    const real = canonical(folder);
    if (real === null || kindOf(real, true) !== "folder") continue;
    // Hiding the workspace or a folder above it would hide the workspace too: then only the
    // credential files themselves are hidden (below).
    if (!within(workspace, real)) hiddenFolders.add(real);
  }
  for (const file of [credentials.mcAuth, credentials.codexAuth, credentials.claudeCredentials]) {
    const real = canonical(file);
    if (real === null || kindOf(real, true) !== "file") continue;
    if (![...hiddenFolders].some((folder) => within(real, folder))) hiddenFiles.add(real);
  }
  const keptUnderHidden = userSkillFolders(inputs).filter(
    (folder) =>
      [...hiddenFolders].some((hidden) => within(folder, hidden)) &&
      ![...hiddenFolders, ...hiddenFiles].some((hidden) => within(hidden, folder)),
  );
  const socketFolders = ["/run", "/var/run"].filter(
    (path) => kindOf(path, false) === "folder" && !within(workspace, path),
  );
  return {
    workspace,
    readOnly,
    hiddenFolders: [...hiddenFolders],
    hiddenFiles: [...hiddenFiles],
    keptUnderHidden,
    socketFolders,
    keptUnderSockets: inputs.network ? resolverFolder(socketFolders) : [],
    network: inputs.network,
    tooWide: holdsWhatItHides(workspace, [
      inputs.env.HOME || homedir(),
      inputs.home,
      dirname(credentials.codexAuth),
      dirname(credentials.claudeCredentials),
    ]),
  };
}

/**
 * The user's skill folders that are real folders at their own place (not a symlink: a link's
 * target could be anything, a credential folder included), canonical.
 */
function userSkillFolders(inputs: PolicyInputs): string[] {
  const credentials = credentialPaths(inputs.home, inputs.env);
  const parents = [
    inputs.home,
    dirname(credentials.claudeCredentials),
    dirname(credentials.codexAuth),
  ];
  return parents.flatMap((parent) => {
    const real = canonical(parent);
    if (real === null) return [];
    const folder = join(real, "skills");
    return kindOf(folder, false) === "folder" ? [folder] : [];
  });
}

/** Whether `workspace` is `/` or any of `folders` lies in it (where they exist or would). */
function holdsWhatItHides(workspace: string, folders: string[]): boolean {
  if (workspace === sep) return true;
  return folders.some((folder) => within(placeOf(folder), workspace));
}

/**
 * Where `path` is, symlinks resolved, whether or not it exists yet: its nearest existing
 * folder's canonical path with the rest of it appended (a credential folder a command could
 * make counts where it would be made).
 */
function placeOf(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    const real = canonical(existing);
    if (real !== null) return join(real, ...rest);
    const parent = dirname(existing);
    if (parent === existing) return resolve(path);
    rest.unshift(basename(existing));
    existing = parent;
  }
}

/** With the network on, DNS still needs /etc/resolv.conf, often a link into /run. */
function resolverFolder(socketFolders: string[]): string[] {
  const real = canonical("/etc/resolv.conf");
  if (real === null) return [];
  const folder = dirname(real);
  return socketFolders.some((path) => within(folder, path)) ? [folder] : [];
}

/** Whether `path` is `folder` or inside it (both canonical). */
export function within(path: string, folder: string): boolean {
  if (folder === sep) return true;
  return path === folder || path.startsWith(folder + sep);
}

/**
 * Most of the paths a policy looks at do not exist (credential files, skill folders, `.mc`):
 * `stat` says so without the exception `realpath` and a plain `lstat` throw, which cost ten
 * times the call on the stdio starter's path to its answer (src/server/turn-facts.ts).
 */
export function canonical(path: string): string | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined ? null : realpathSync(path);
  } catch {
    return null;
  }
}

function kindOf(path: string, follow: boolean): "folder" | "file" | null {
  try {
    const options = { throwIfNoEntry: false } as const;
    const stat = follow ? statSync(path, options) : lstatSync(path, options);
    if (stat?.isDirectory()) return "folder";
    if (stat?.isFile()) return "file";
    return null;
  } catch {
    return null;
  }
}

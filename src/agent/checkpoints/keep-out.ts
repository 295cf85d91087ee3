/**
 * What checkpoints leave alone whatever the workspace's own rules say (docs/checkpoints.md,
 * "What a checkpoint records"): mc's own stores (store/store-paths.ts: MC_HOME with the shadow
 * repositories and every session's history, the cache roots, credential files) where the
 * workspace holds them. Without this a workspace that is `$HOME` recorded `~/.mc` (the shadow
 * repository's own objects included) at every checkpoint, every revert found it changed, and a
 * forced revert deleted other sessions' histories and the checkpoints themselves.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { realish } from "../../store/realish-path.js";
import { rawOf } from "./raw-paths.js";

export interface KeepOut {
  /** Raw workspace-relative paths (no trailing `/`): never recorded, never touched. */
  paths: string[];
  /** The workspace is a store or lies inside one: no checkpoint could leave the store out. */
  workspaceInStore: boolean;
}

/** Which of `stores` (absolute paths) the canonical `workspace` holds, each as given and resolved. */
export function keepOutOf(workspace: string, stores: readonly string[]): KeepOut {
  const paths = new Set<string>();
  let workspaceInStore = false;
  for (const store of stores)
    for (const place of new Set([resolve(store), realish(resolve(store))])) {
      const rel = relative(workspace, place);
      if (rel === "" || !isOutside(relative(place, workspace))) workspaceInStore = true;
      else if (!isOutside(rel)) paths.add(rawOf(rel.split(sep).join("/")));
    }
  return { paths: [...paths].sort(), workspaceInStore };
}

/** Whether raw `path` is one of the kept-out paths or lies under one. */
export function keptOut(path: string, paths: readonly string[]): boolean {
  return paths.some((kept) => path === kept || path.startsWith(`${kept}/`));
}

function isOutside(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

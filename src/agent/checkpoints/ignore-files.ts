/**
 * The workspace's `.gitignore` files as checkpoints and reverts see them (docs/checkpoints.md,
 * "Ignore files"). A turn may write an ignore file that hides itself and the files it made
 * (`*`): git then lists none of them. So a checkpoint records ignore files whatever they say
 * (shadow-repo.ts), a revert also finds the ones that hide themselves (here), and a revert that
 * changed an ignore file looks again under the rules it restored (revert.ts).
 */
import { lstat } from "node:fs/promises";
import { isIgnoreFile } from "./left-out.js";
import { onDisk, rawBytes, splitZ } from "./raw-paths.js";
import type { ShadowRepo, TreeEntry } from "./shadow-repo.js";

export { isIgnoreFile };

/**
 * The ignore files in folders git looks into that ignore themselves (so no snapshot lists them
 * when they are new), hashed into the shadow repository, by raw path. Ignored folders are not
 * entered (`--directory`): git reads no ignore file there either.
 */
export async function hiddenIgnoreFiles(
  repo: ShadowRepo,
  signal?: AbortSignal,
): Promise<Map<string, TreeEntry>> {
  const run = signal ? { signal } : {};
  const listed = splitZ(
    await repo.git(
      [
        "ls-files",
        "-z",
        "-o",
        "-i",
        "--directory",
        "--exclude-standard",
        "--",
        ":(glob)**/.gitignore",
      ],
      run,
    ),
  ).filter((path) => isIgnoreFile(path) && !repo.keptOut(path) && !/[\n\r]/.test(path));
  const files: { path: string; mode: string }[] = [];
  for (const path of listed) {
    const found = await lstat(onDisk(repo.workspace, path)).catch(() => null);
    if (found?.isFile()) files.push({ path, mode: found.mode & 0o100 ? "100755" : "100644" });
  }
  const entries = new Map<string, TreeEntry>();
  if (files.length === 0) return entries;
  const objects = (
    await repo.git(["hash-object", "-w", "--stdin-paths"], {
      ...run,
      input: rawBytes(files.map((f) => `${f.path}\n`).join("")),
    })
  )
    .toString("utf8")
    .split("\n")
    .filter(Boolean);
  files.forEach((file, at) => {
    const object = objects[at];
    if (object) entries.set(file.path, { mode: file.mode, object });
  });
  return entries;
}

/**
 * A custom command's expansion (docs/skills.md, "Expansion"): the file's text after its front
 * matter, `$ARGUMENTS` replaced by the arguments as given and `$1`..`$9` by their words (split at
 * white space, a quoted part one word; a missing word is empty), in one pass, so an argument's own
 * `$1` stays as typed. A file without any placeholder gets non-empty arguments appended on a last
 * line `ARGUMENTS: <arguments>`, as Claude Code does.
 */
import { COMMAND_FILE_BYTES } from "../../protocol/schemas/skills.js";
import { frontMatter } from "../skills/front-matter.js";
import { readBounded } from "../skills/place-files.js";
import type { CustomCommand } from "./discover-commands.js";

const PLACEHOLDER = /\$(ARGUMENTS|[1-9])/g;

/** The text, expanded; null when the file can no longer be read as a command. */
export async function expandCommand(command: CustomCommand, args: string): Promise<string | null> {
  const read = await readBounded(command.file, COMMAND_FILE_BYTES, command.confinedTo);
  if (read.kind !== "bytes" || !read.whole) return null;
  const parsed = await frontMatter(read.bytes.toString("utf8"));
  if (parsed.kind === "invalid") return null;
  return expandText(parsed.body, args);
}

export function expandText(template: string, args: string): string {
  const words = argumentWords(args);
  let placeholders = 0;
  const expanded = template.replace(PLACEHOLDER, (_, which: string) => {
    placeholders += 1;
    return which === "ARGUMENTS" ? args : (words[Number(which) - 1] ?? "");
  });
  if (placeholders > 0 || args.trim() === "") return expanded;
  return `${expanded.replace(/\s+$/, "")}\n\nARGUMENTS: ${args}`;
}

/** `a "b c" 'd'` → a, b c, d: white space splits, single or double quotes group (and go). */
export function argumentWords(args: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of args.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

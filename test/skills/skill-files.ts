/** Skill and command files on real folders, for the skills tests (docs/skills.md). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Writes `<root>/<folder>/SKILL.md` with this front matter (raw YAML) and body; returns the folder. */
export function writeSkill(root: string, folder: string, yaml: string, body = "Do it.\n"): string {
  const at = join(root, folder);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, "SKILL.md"), `---\n${yaml}\n---\n${body}`);
  return at;
}

/** A valid skill: `name: <name>` and a description. */
export function skill(root: string, name: string, description: string, body?: string): string {
  return writeSkill(root, name, `name: ${name}\ndescription: ${description}`, body);
}

export function writeCommand(root: string, name: string, text: string): string {
  const file = join(root, `${name}.md`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

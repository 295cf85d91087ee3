/**
 * The import rules of docs/architecture.md, checked against a source tree: the allowed arrows
 * read from the document's table, every file's imports read with TypeScript's own scanner
 * (static, dynamic `import()`, `export ... from`, type-only and `typeof import()` alike; comments
 * and strings that merely mention an import do not count), and the circles between files. Used
 * by test/project-rules.test.ts; a function of a root, so the same checks can be run on an older
 * tree to show what they catch.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";

/** One row of the arrows table: the rooms (or `room/file.ts` paths) a room may import. */
export interface RoomRule {
  imports: Set<string>;
  node: boolean;
}

/** The table under the "## Allowed arrows" heading: `| room | may import | node: |`. */
export function readArrowTable(markdown: string): Map<string, RoomRule> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Allowed arrows"));
  if (section === undefined) throw new Error('no "## Allowed arrows" section');
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  if (header?.join(",") !== "room,may import,node:") throw new Error("unexpected table header");
  const rules = new Map<string, RoomRule>();
  for (const [room, imports, node] of body) {
    const names = (cell: string | undefined) =>
      [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    const [name] = names(room);
    if (name === undefined || (node !== "yes" && node !== "no"))
      throw new Error(`bad row for ${room}`);
    rules.set(name, { imports: new Set(names(imports)), node: node === "yes" });
  }
  return rules;
}

/** Every .ts file under `src`, by its path relative to it (with `/`), and what it imports. */
export interface SourceFile {
  /** The room: the first folder, or the file's name without `.ts` for a file at the top. */
  room: string;
  /** Relative imports, resolved to source paths relative to `src` (`server/stdio.ts`). */
  imports: string[];
  /** Whether it imports any `node:` module. */
  node: boolean;
}

export function readSources(src: string): Map<string, SourceFile> {
  const files = new Map<string, SourceFile>();
  for (const path of walk(src)) {
    const rel = relative(src, path).split(sep).join("/");
    const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
    const specifiers = importedFiles.map((file) => file.fileName);
    files.set(rel, {
      room: roomOf(rel),
      imports: specifiers
        .filter((spec) => spec.startsWith("."))
        .map((spec) =>
          relative(src, join(dirname(path), spec))
            .split(sep)
            .join("/")
            .replace(/\.js$/, ".ts"),
        ),
      node: specifiers.some((spec) => spec.startsWith("node:")),
    });
  }
  return files;
}

function roomOf(rel: string): string {
  const [first = ""] = rel.split("/");
  return rel.includes("/") ? first : first.replace(/\.ts$/, "");
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Each import the table does not allow, as `file imports target`, and each unlisted room. */
export function arrowViolations(
  files: Map<string, SourceFile>,
  rules: Map<string, RoomRule>,
): string[] {
  const violations: string[] = [];
  const rooms = new Set([...files.values()].map((file) => file.room));
  for (const room of rooms)
    if (!rules.has(room)) violations.push(`room ${room} has no row in the arrows table`);
  for (const room of rules.keys())
    if (!rooms.has(room)) violations.push(`the arrows table names ${room}, which src/ lacks`);
  for (const [rel, file] of files) {
    const rule = rules.get(file.room);
    if (rule === undefined) continue;
    if (file.node && !rule.node) violations.push(`${rel} imports node:`);
    for (const target of file.imports) {
      const room = roomOf(target);
      if (room === file.room || rule.imports.has(room) || rule.imports.has(target)) continue;
      violations.push(`${rel} imports ${target}`);
    }
  }
  return violations;
}

/**
 * Every import circle between files: one line per strongly connected group of files (Tarjan),
 * as one circle through it (`a.ts -> b.ts -> a.ts`), sorted.
 */
export function importCycles(files: Map<string, SourceFile>): string[] {
  const edges = (file: string) => (files.get(file)?.imports ?? []).filter((to) => files.has(to));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const to of edges(file)) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) as number, index.get(to) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || edges(file).includes(file)) groups.push(group);
  };
  for (const file of [...files.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.map((group) => circleThrough(group.sort(), edges).join(" -> ")).sort();
}

/** A shortest circle from the group's first file back to it, through the group only. */
function circleThrough(group: string[], edges: (file: string) => string[]): string[] {
  const start = group[0] as string;
  const members = new Set(group);
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const to of edges(file)) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

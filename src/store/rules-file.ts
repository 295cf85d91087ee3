/**
 * The approval rules of one workspace: `MC_HOME/rules/<key>.json` (docs/store.md, "Approval
 * rules"). `<key>` is the first 32 hex digits of the SHA-256 of the canonical workspace path,
 * and the file names its workspace again, so a file under the wrong name is never applied.
 * Written only by a rule change, atomically; a damaged or unsafe file is `invalid`: none of its
 * rules apply and it is never rewritten except by `clear`.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { type Infer, lazy } from "../protocol/lazy.js";
import { AtomicWriteError, type RenameGate, writeFileAtomic } from "./atomic-write.js";
import { errorCode, readRegularFile, UnsafeStoreFile } from "./safe-read.js";
import { parseJson } from "./settings.js";

/** A rules file over this size is invalid (a full one of 256 long rules is well under it). */
const RULES_FILE_BYTES = 1_048_576;
/** Restated from the protocol (the store imports nothing outside itself); a test keeps them equal. */
export const MAX_RULES = 256;
const WORD_CHARS = 1024;

const RuleMeta = lazy(() => ({
  id: z.string().regex(/^w-[0-9a-f]{16}$/),
  effect: z.enum(["allow", "deny"]),
  created_at: z.iso.datetime(),
}));
export const StoredRule = lazy(() =>
  z.discriminatedUnion("tool", [
    z.strictObject({
      ...RuleMeta(),
      tool: z.literal("shell"),
      match: z.enum(["prefix", "exact"]),
      env: z.array(z.string().max(WORD_CHARS)).max(64),
      words: z.array(z.string().max(WORD_CHARS)).min(1).max(256),
    }),
    z.strictObject({
      ...RuleMeta(),
      tool: z.literal("edit"),
      path_glob: z.string().min(1).max(WORD_CHARS).nullable(),
    }),
    z.strictObject({
      ...RuleMeta(),
      tool: z.literal("mcp"),
      name: z.string().min(1).max(64),
    }),
  ]),
);
export type StoredRule = Infer<typeof StoredRule>;
/** A rule before it is stored: the store gives it its ID and time. */
export type NewRule = StoredRule extends infer R
  ? R extends unknown
    ? Omit<R, "id" | "created_at">
    : never
  : never;

const RulesFile = lazy(() =>
  z
    .strictObject({
      version: z.literal(1),
      workspace: z.string().min(1),
      rules: z.array(StoredRule()).max(MAX_RULES),
    })
    .refine(
      (file) => new Set(file.rules.map((r) => r.id)).size === file.rules.length,
      "duplicate id",
    ),
);

export type RulesRead =
  | { state: "absent"; rules: [] }
  | { state: "ok"; rules: StoredRule[] }
  | { state: "invalid"; rules: [] };

/** A rule change that could not be made; carries no path. */
export class RulesUnavailable extends Error {
  constructor(readonly reason: "invalid" | "full" | "write_failed" | "missing_rule") {
    super(`rules unavailable (${reason})`);
    this.name = "RulesUnavailable";
  }
}

function rulesDir(home: string): string {
  return join(home, "rules");
}

function rulesFileName(workspace: string): string {
  return `${createHash("sha256").update(workspace).digest("hex").slice(0, 32)}.json`;
}

/**
 * One workspace's rules file. Changes within this process are serialized, each a read, a check
 * and an atomic replace; `extraCheck` lets the caller refuse rules the store cannot judge
 * (their text bound, a glob's grammar) so that a file it cannot apply whole is `invalid`.
 */
export class WorkspaceRulesFile {
  private readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly home: string,
    private readonly workspace: string,
    private readonly extraCheck: (rule: StoredRule) => boolean = () => true,
  ) {
    this.path = join(rulesDir(home), rulesFileName(workspace));
  }

  async read(): Promise<RulesRead> {
    if (!(await this.folderSafe())) return { state: "invalid", rules: [] };
    let bytes: Buffer;
    try {
      const read = await readRegularFile(this.path, RULES_FILE_BYTES);
      if (read.kind === "missing") return { state: "absent", rules: [] };
      if (read.kind === "too_large") return { state: "invalid", rules: [] };
      bytes = read.bytes;
    } catch (error) {
      if (error instanceof UnsafeStoreFile) return { state: "invalid", rules: [] };
      throw error;
    }
    const parsed = RulesFile().safeParse(parseJson(bytes));
    if (!parsed.success || parsed.data.workspace !== this.workspace)
      return { state: "invalid", rules: [] };
    if (!parsed.data.rules.every(this.extraCheck)) return { state: "invalid", rules: [] };
    return { state: "ok", rules: parsed.data.rules };
  }

  /** Adds a rule (an equal one already kept is not added twice); returns the kept rule. */
  add(rule: NewRule, now = new Date()): Promise<StoredRule> {
    return this.change(async (rules) => {
      const same = rules.find((r) => sameRule(r, rule));
      if (same) return { rules, value: same };
      if (rules.length >= MAX_RULES) throw new RulesUnavailable("full");
      const kept = {
        ...rule,
        id: `w-${randomBytes(8).toString("hex")}`,
        created_at: now.toISOString(),
      } as StoredRule;
      if (!this.extraCheck(kept)) throw new RulesUnavailable("invalid");
      return { rules: [...rules, kept], value: kept };
    });
  }

  /** `gate` wraps the commit (a cancellable request's `commit`): refused, nothing changes. */
  remove(id: string, gate?: RenameGate): Promise<void> {
    return this.change(async (rules) => {
      if (!rules.some((r) => r.id === id)) throw new RulesUnavailable("missing_rule");
      return { rules: rules.filter((r) => r.id !== id), value: undefined };
    }, gate);
  }

  /** Empties the file, whatever it held: the one change an invalid file accepts. */
  clear(gate?: RenameGate): Promise<void> {
    return this.serial(async () => {
      if (!(await this.folderSafe())) throw new RulesUnavailable("invalid");
      if ((await this.read()).state === "absent") return;
      await this.write([], gate);
    });
  }

  private change<T>(
    edit: (rules: StoredRule[]) => Promise<{ rules: StoredRule[]; value: T }>,
    gate?: RenameGate,
  ): Promise<T> {
    return this.serial(async () => {
      const current = await this.read();
      if (current.state === "invalid") throw new RulesUnavailable("invalid");
      const { rules, value } = await edit(current.rules);
      if (rules !== current.rules) await this.write(rules, gate);
      return value;
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }

  private async write(rules: StoredRule[], gate?: RenameGate): Promise<void> {
    const file = { version: 1, workspace: this.workspace, rules };
    const bytes = Buffer.from(`${JSON.stringify(file, null, 1)}\n`);
    try {
      await writeFileAtomic(this.path, bytes, 0o600, gate);
    } catch (error) {
      // A gate's refusal (a cancelled request) is the caller's to answer.
      if (error instanceof AtomicWriteError) throw new RulesUnavailable("write_failed");
      throw error;
    }
  }

  /** `MC_HOME/rules` is a real folder, or absent; a symlink or a file there is unsafe. */
  private async folderSafe(): Promise<boolean> {
    try {
      return (await lstat(rulesDir(this.home))).isDirectory();
    } catch (error) {
      return errorCode(error) === "ENOENT";
    }
  }
}

function sameRule(kept: StoredRule, rule: NewRule): boolean {
  const { id: _id, created_at: _at, ...body } = kept;
  return canonical(body) === canonical(rule);
}

function canonical(rule: object): string {
  return JSON.stringify(rule, Object.keys(rule).sort());
}

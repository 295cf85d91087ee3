import { opendir } from "node:fs/promises";
import { ProtocolError } from "../../protocol/codes.js";
import { sessionsDir } from "../../store/layout.js";
import type { Slicer } from "../slicer.js";
import { type PreparedFork, prepareFork } from "./fork-copy.js";
import { planFork } from "./fork-plan.js";

/**
 * The derived histories a fork carries (docs/store.md, "Forks"): those of the subagents whose
 * `agent` call is among the records the fork copies (fork-plan.ts finds them), never those of
 * the turns it drops. Each is copied whole, as a whole fork copies a history (its own
 * `session_meta` `{id: "<new>.<subagent>", forked_from: {id: "<source>.<subagent>", turn_id:
 * null}}`, then its records byte for byte, a torn tail left out), to a temp file first; they
 * are linked to `<new>.<subagent>.jsonl` in the fork's commit, just before the fork's own
 * history, so the new session is never seen without them. One that is unsafe, invalid or of
 * another workspace is not copied (the fork's own history does not depend on it).
 */

/** A subagent ID, as the wire's item IDs (the store restates it: it imports no protocol). */
const SUBAGENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The subagents that have a derived history beside `sourceId`'s, by name. */
export async function derivedOf(home: string, sourceId: string): Promise<Set<string>> {
  const found = new Set<string>();
  const prefix = `${sourceId}.`;
  try {
    const dir = await opendir(sessionsDir(home));
    for await (const entry of dir) {
      const { name } = entry;
      if (!name.startsWith(prefix) || !name.endsWith(".jsonl")) continue;
      const subagent = name.slice(prefix.length, -".jsonl".length);
      if (SUBAGENT_ID.test(subagent)) found.add(subagent);
    }
  } catch {}
  return found;
}

/** Why a derived history is left out of a fork rather than refusing it. */
const NOT_COPIED = new Set(["session_missing", "session_invalid", "cwd_mismatch"]);

/** The derived copies of one fork, each in its temp file, to link in the fork's commit. */
export class DerivedCopies {
  private readonly prepared: PreparedFork[] = [];
  private linked = 0;

  static async prepare(
    home: string,
    cwd: string,
    ids: { source: string; fork: string },
    subagents: readonly string[],
    slicer: Slicer,
  ): Promise<DerivedCopies> {
    const copies = new DerivedCopies();
    try {
      for (const subagent of subagents) await copies.add(home, cwd, ids, subagent, slicer);
    } catch (error) {
      await copies.discard();
      throw error;
    }
    return copies;
  }

  private async add(
    home: string,
    cwd: string,
    ids: { source: string; fork: string },
    subagent: string,
    slicer: Slicer,
  ): Promise<void> {
    const source = `${ids.source}.${subagent}`;
    const meta = {
      type: "session_meta",
      ts: new Date().toISOString(),
      cwd,
      id: `${ids.fork}.${subagent}`,
      forked_from: { id: source, turn_id: null },
    };
    let plan: Awaited<ReturnType<typeof planFork>>;
    try {
      plan = await planFork(home, cwd, source, null, meta, slicer);
    } catch (error) {
      if (error instanceof ProtocolError && NOT_COPIED.has(error.code)) return;
      throw error;
    }
    const copy = await prepareFork(home, source, meta.id, meta, plan, slicer, { sweep: false });
    this.prepared.push(copy);
  }

  /** In the commit, before the fork's own link: all of them, or (throwing) none. */
  link(): void {
    try {
      for (const copy of this.prepared) {
        copy.link();
        this.linked += 1;
      }
    } catch (error) {
      this.unlink();
      throw error;
    }
  }

  /** In the commit, when the fork's own link failed after these: takes them back. */
  unlink(): void {
    for (const copy of this.prepared.slice(0, this.linked)) copy.unlink();
    this.linked = 0;
  }

  /** After the commit: their temp names go (the fork's settle makes the folder durable). */
  async settle(): Promise<void> {
    for (const copy of this.prepared) await copy.settle();
  }

  async discard(): Promise<void> {
    for (const copy of this.prepared) await copy.discard();
  }
}

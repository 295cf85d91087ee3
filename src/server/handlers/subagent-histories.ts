/**
 * A subagent's history (docs/turns.md "Subagents", docs/store.md): the derived file
 * `sessions/<parent-id>.<subagent-id>.jsonl`, written by its own SessionWriter with a primary's
 * crash-safety (one positional write a record, fsync points, truncate-back), under its own lock
 * file. Derived names are never listed nor opened as sessions.
 */
import type { SubagentSetup } from "../../agent/subagents/subagent-runner.js";
import type { PositionalWrite } from "../../sessions/writing/writer.js";
import { SessionWriter } from "../../sessions/writing/writer.js";

export function subagentHistories(
  home: string,
  cwd: string,
  sessionId: string,
  record: (writer: SessionWriter, turnId: string) => SubagentHistoryRecord,
  write?: PositionalWrite,
  model?: SubagentSetup["model"],
): SubagentSetup {
  return {
    ...(model ? { model } : {}),
    async openHistory(subagentId) {
      const writer = await SessionWriter.acquire({
        home,
        cwd,
        id: `${sessionId}.${subagentId}`,
        create: true,
        ...(write ? { write } : {}),
      });
      return { record: record(writer, subagentId), close: () => writer.close() };
    },
  };
}

type SubagentHistoryRecord = Awaited<ReturnType<SubagentSetup["openHistory"]>>["record"];

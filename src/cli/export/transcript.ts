import type { SessionEntry, SessionEvent } from "../../client/index.js";

/**
 * A session's records as the parts an export shows (export.ts): messages, tool calls folded
 * with their results, an edit's change as a diff, turn ends with their cost. Records of other
 * types (session_meta, turn_start, mode, model, ...) are the raw export's (`--format json`).
 */
export type Part =
  | { kind: "user" | "assistant"; text: string; ts: string; model?: string }
  | {
      kind: "tool";
      tool: string;
      input: unknown;
      diff: string | null;
      status: string | null;
      output: string | null;
    }
  | { kind: "turn_end"; status: string; cost: number | null }
  | { kind: "title"; title: string }
  | { kind: "compaction"; summary: string };

export interface Transcript {
  session: SessionEntry;
  parts: Part[];
}

/** Folds a history's records into parts; a tool's result joins its call (by item ID). */
export function partsOf(events: Iterable<SessionEvent>): Part[] {
  const parts: Part[] = [];
  const calls = new Map<string, Extract<Part, { kind: "tool" }>>();
  for (const event of events) {
    const e = event as Record<string, unknown>;
    const text = typeof e.text === "string" ? e.text : "";
    switch (e.type) {
      case "user_message":
        parts.push({ kind: "user", text, ts: String(e.ts) });
        break;
      case "assistant_message":
        parts.push({
          kind: "assistant",
          text,
          ts: String(e.ts),
          ...(typeof e.model === "string" ? { model: e.model } : {}),
        });
        break;
      case "tool_call": {
        const part = {
          kind: "tool" as const,
          tool: String(e.tool),
          input: e.input,
          diff: diffOf(String(e.tool), e.input),
          status: null,
          output: null,
        };
        calls.set(String(e.item_id), part);
        parts.push(part);
        break;
      }
      case "tool_result": {
        const call = calls.get(String(e.item_id));
        if (call) {
          call.status = String(e.status);
          call.output = typeof e.output === "string" ? e.output : null;
        }
        break;
      }
      case "turn_end":
        parts.push({
          kind: "turn_end",
          status: String(e.status),
          cost: typeof e.cost_usd === "number" ? e.cost_usd : null,
        });
        break;
      case "title":
        if (typeof e.title === "string") parts.push({ kind: "title", title: e.title });
        break;
      case "compaction":
        if (typeof e.summary === "string") parts.push({ kind: "compaction", summary: e.summary });
        break;
    }
  }
  return parts;
}

/**
 * The change an edit or a write makes, as unified-diff-like lines: edit_file's old text removed
 * and new text added, write_file's content added. Null for every other tool.
 */
export function diffOf(tool: string, input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const i = input as Record<string, unknown>;
  const path = typeof i.path === "string" ? i.path : "?";
  const lines = (text: string, sign: string) =>
    text
      .replace(/\n$/, "")
      .split("\n")
      .map((line) => `${sign}${line}`);
  if (tool === "edit_file" && typeof i.old_text === "string" && typeof i.new_text === "string")
    return [
      `--- a/${path}`,
      `+++ b/${path}`,
      ...lines(i.old_text, "-"),
      ...lines(i.new_text, "+"),
    ].join("\n");
  if (tool === "write_file" && typeof i.content === "string")
    return [`--- /dev/null`, `+++ b/${path}`, ...lines(i.content, "+")].join("\n");
  return null;
}

/** A tool call's one-line summary: its name and its path or command. */
export function toolLine(part: Extract<Part, { kind: "tool" }>): string {
  const input = (typeof part.input === "object" && part.input !== null ? part.input : {}) as Record<
    string,
    unknown
  >;
  const what = [input.command, input.path, input.pattern].find((v) => typeof v === "string");
  const status = part.status && part.status !== "completed" ? ` (${part.status})` : "";
  return `${part.tool}${what ? `: ${String(what).split("\n")[0]}` : ""}${status}`;
}

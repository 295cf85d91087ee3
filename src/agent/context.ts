import type { Replay } from "../sessions/history/replay-window.js";
import type { ReplayRecord } from "../sessions/records/turn-records.js";
import { referencedParts } from "./attachments/image-context.js";
import type { ContextItem, ProviderState } from "./providers/provider.js";

/** What the model is told of a call whose result was never recorded (its writer was killed). */
const LOST_RESULT = "The tool call was interrupted before it produced a result.";

/**
 * What the model is told first when a replay cut to its bound starts inside a turn (at a step
 * boundary), so that the conversation it sees still starts with a user message, as every
 * provider accepts.
 */
export const LEFT_OUT =
  "The earlier part of this conversation was too long to replay and is left out here.";

type ToolCallItem = Extract<ContextItem, { kind: "tool_call" }>;
type ToolResultItem = Extract<ContextItem, { kind: "tool_result" }>;

/**
 * The provider-neutral context from a session's records (those since its latest compaction).
 * Turn bookkeeping is skipped. The tool calls of one model step come out together, followed by
 * their results in call order, whatever order they were recorded in; a call without a recorded
 * result (a killed writer) gets an interrupted one, because every API requires each call
 * answered; a result without its call is dropped.
 */
function contextFromRecords(records: readonly ReplayRecord[]): ContextItem[] {
  const items: ContextItem[] = [];
  let calls: ToolCallItem[] = [];
  const results = new Map<string, ToolResultItem>();
  /** Where each turn's items start: a revert cuts the context back there. */
  const turnStarts = new Map<string, number>();
  const closeStep = () => {
    items.push(...calls);
    for (const call of calls)
      items.push(
        results.get(call.call_id) ?? {
          kind: "tool_result",
          call_id: call.call_id,
          output: LOST_RESULT,
          is_error: true,
        },
      );
    calls = [];
    results.clear();
  };
  for (const record of records) {
    // A plan is shown to people; the model has its `update_plan` call and result instead.
    if (record.type === "plan") continue;
    if (record.type === "tool_call") {
      calls.push({
        kind: "tool_call",
        call_id: record.call_id,
        tool: record.tool,
        input: record.input,
      });
      continue;
    }
    if (record.type === "tool_result") {
      if (calls.some((call) => call.call_id === record.call_id))
        results.set(record.call_id, {
          kind: "tool_result",
          call_id: record.call_id,
          output: record.output,
          is_error: record.status !== "completed",
        });
      continue;
    }
    closeStep();
    if (record.type === "turn_start") turnStarts.set(record.turn_id, items.length);
    if (record.type === "revert") {
      revertTo(items, turnStarts, record.turn_id);
      continue;
    }
    if (record.type === "user_message")
      items.push({ kind: "user", text: record.text, ...referencedParts(record.attachments) });
    if (record.type === "assistant_message")
      items.push({
        kind: "assistant",
        text: record.text,
        // A message another tool wrote may name no model: it then replays as nobody's.
        model: record.model ?? "",
        ...(isState(record.provider_state) ? { provider_state: record.provider_state } : {}),
      });
    if (record.type === "compaction") {
      items.length = 0;
      items.push({ kind: "summary", text: record.summary });
    }
  }
  closeStep();
  return items;
}

/**
 * Leaves out the reverted turn and every later one. A turn that started before the records
 * replayed (before the latest compaction) leaves only the summary.
 */
function revertTo(items: ContextItem[], turnStarts: Map<string, number>, turnId: string): void {
  const start = turnStarts.get(turnId) ?? (items[0]?.kind === "summary" ? 1 : 0);
  items.length = Math.min(items.length, start);
  for (const [id, at] of turnStarts) if (at >= start) turnStarts.delete(id);
}

/**
 * The context from a replay (replay.ts). A replay cut to its bound that starts with no user
 * message or summary (inside a turn) is led by a note that the older part is left out.
 */
export function contextFromReplay(replay: Replay): ContextItem[] {
  const items = contextFromRecords(replay.records);
  const first = items[0]?.kind;
  if (replay.truncated && first !== "user" && first !== "summary")
    items.unshift({ kind: "user", text: LEFT_OUT });
  return items;
}

function isState(value: unknown): value is ProviderState {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ProviderState).provider === "string"
  );
}

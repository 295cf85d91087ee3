/**
 * Subagents (capability `subagents`, docs/turns.md "Subagents"): each `agent` call runs a
 * nested turn with a fresh context (the system prompt, AGENTS.md and its prompt, none of the
 * parent's history) on the parent's model or the settings' `subagent_model`, under the parent's interrupt, approvals and rules.
 * Its events reach the parent's stream inside `subagent_event` (its approvals as they are, with
 * `subagent_id`); its records go to its own derived history; its usage is summed into the
 * parent's result only. A subagent is offered neither `agent` (depth 1) nor `update_plan`.
 */
import type { Infer } from "../../protocol/lazy.js";
import type { Permissions, TurnEventBody, TurnResult } from "../../protocol/schemas/turns.js";
import type { TurnRecordBody } from "../../sessions/records/turn-records.js";
import type { ModelCost } from "../../store/catalog-cache.js";
import type { ModelProvider, Usage } from "../providers/provider.js";
import { ToolError } from "../tools/tool.js";
import { TurnEvents } from "../turn-events.js";
import { agentTool } from "./agent-tool.js";
import { subagentAnswer } from "./subagent-answer.js";

/** A subagent's derived history, opened by the server (`sessions/<parent>.<subagent>.jsonl`). */
export interface SubagentHistory {
  record: (body: TurnRecordBody, sync?: boolean) => Promise<void>;
  close(): Promise<void>;
}

/** The model a subagent runs on when it is not its parent's (`subagent_model`). */
export interface SubagentModel {
  model: { id: string; name: string; effort: string | null; contextWindow: number | null };
  /** Its prices (cost.ts); null: the parent turn's cost becomes unknown. */
  price: ModelCost | null;
  provider: ModelProvider;
}

/** What the server gives a turn that may start subagents. */
export interface SubagentSetup {
  /** Creates the subagent's derived history; throws when it cannot. */
  openHistory(subagentId: string): Promise<SubagentHistory>;
  /**
   * The settings' `subagent_model`, resolved for one subagent: null when none is set (the
   * parent's model); a ToolError (no path, no URL) when it is not a model that can be used now.
   */
  model?(): Promise<SubagentModel | null>;
}

/** What differs in a subagent's turn from its parent's (the engine spreads it over its inputs). */
export interface NestedTurn {
  turnId: string;
  createdSession: false;
  input: string;
  permissions: Permissions;
  history: [];
  historyTruncated: false;
  events: TurnEvents;
  record: SubagentHistory["record"];
  signal: AbortSignal;
  /** Depth 1 and no plan; no checkpoint of its own (the parent's turn covers its edits); no MCP. */
  subagents: undefined;
  plans: false;
  checkpoint: undefined;
  mcp: undefined;
  /** Present only with `subagent_model`: otherwise the parent's model and provider. */
  model?: SubagentModel["model"] & { price: ModelCost | null };
  provider?: ModelProvider;
}

interface ParentTurn {
  permissions: Permissions;
  events: TurnEvents;
  setup: SubagentSetup | undefined;
  runNested: (turn: NestedTurn) => Promise<Infer<typeof TurnResult>>;
  /**
   * Sums a subagent's usage into the parent's result (never a `usage` event of the parent), at
   * its model's price: `undefined` for the parent's own model.
   */
  addUsage: (usage: Usage, price?: ModelCost | null) => void;
}

/** Room the `subagent_event` wrapper and the parent's IDs take around an inner event. */
const WRAP_BYTES = 384;
/** The longest request ID: inner events are measured with it. */
const LONGEST_ID = "x".repeat(64);

/** The `agent` tool of a turn that negotiated `subagents`; none for a subagent itself. */
export function subagentTools(parent: ParentTurn) {
  const { setup } = parent;
  if (!setup) return [];
  return [
    agentTool(parent.permissions, async (task, itemId, signal) => {
      // Resolved before anything is written: a model that cannot be used starts nothing.
      const own = (await setup.model?.()) ?? null;
      let history: SubagentHistory;
      try {
        history = await setup.openHistory(itemId);
      } catch {
        throw new ToolError("The subagent's history could not be written; it did not start.");
      }
      let finalText = "";
      const events = new TurnEvents(
        (params) => {
          const event = params.event as Exclude<TurnEventBody, { type: "subagent_event" }>;
          if (event.type === "message_done") finalText = event.text;
          // Approvals are answered by the frontend as the parent's are, so they stay on top.
          if (event.type === "approval_requested" || event.type === "approval_resolved")
            return parent.events.emit(event);
          return parent.events.emit({
            type: "subagent_event",
            item_id: itemId,
            subagent_id: itemId,
            event,
          });
        },
        LONGEST_ID,
        itemId,
        { wrapBytes: WRAP_BYTES, subagentId: itemId },
      );
      try {
        const result = await parent.runNested({
          turnId: itemId,
          createdSession: false,
          input: task.prompt,
          permissions: task.permissions,
          history: [],
          historyTruncated: false,
          events,
          record: history.record,
          signal,
          subagents: undefined,
          plans: false,
          checkpoint: undefined,
          mcp: undefined,
          ...(own ? { model: { ...own.model, price: own.price }, provider: own.provider } : {}),
        });
        parent.addUsage(result.usage, own ? own.price : undefined);
        return subagentAnswer(result, finalText);
      } finally {
        await history.close();
      }
    }),
  ];
}

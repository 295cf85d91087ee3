import type { Permissions } from "../protocol/schemas/turns.js";
import type { TurnRecordBody } from "../sessions/records/turn-records.js";
import type { ModelCost } from "../store/catalog-cache.js";
import type { ApprovalBroker } from "./approvals.js";
import type { PreparedImage } from "./attachments/prepare.js";
import type { TurnCheckpoints } from "./checkpoints/turn-checkpoints.js";
import type { TurnHooks } from "./hooks/turn-hooks.js";
import type { McpToolSource } from "./mcp-tools/source.js";
import type { ContextItem, ModelProvider } from "./providers/provider.js";
import type { RuleBook, SessionRules } from "./rules/rule-book.js";
import type { Skill } from "./skills/discover-skills.js";
import type { SteerInbox } from "./steering.js";
import type { SubagentSetup } from "./subagents/subagent-runner.js";
import type { offeredTools } from "./tools/index.js";
import type { ToolContext } from "./tools/tool.js";
import type { TurnEvents } from "./turn-events.js";

/** The model a turn calls. */
export interface TurnModel {
  /** `provider/model`. */
  id: string;
  /** The provider's own name for it. */
  name: string;
  effort: string | null;
  contextWindow: number | null;
  /** Its prices from the catalog (cost.ts); null or absent: the turn's cost is unknown. */
  price?: ModelCost | null;
}

/** Everything one turn runs with (engine.ts's runTurn): the session, model, tools, rules, sinks. */
export interface TurnInputs {
  turnId: string;
  sessionId: string;
  createdSession: boolean;
  input: string;
  /** Images sent with the input (turn.start's `attachments`; attachments/prepare.ts). */
  images?: PreparedImage[];
  permissions: Permissions;
  model: TurnModel;
  provider: ModelProvider;
  system: (tools: ReturnType<typeof offeredTools>) => string;
  /** The session's context before this turn (from its records). */
  history: ContextItem[];
  /**
   * The history was cut to the replay bound (replay.ts): it is far past any model's window, so
   * the turn compacts before its first model call, whether or not the window is known.
   */
  historyTruncated?: boolean;
  events: TurnEvents;
  approvals: ApprovalBroker;
  /** The approval rules calls are judged by: the workspace's and this attachment's. */
  rules: { book: RuleBook; session: SessionRules };
  /** Appends one record of this turn (the writer fills ts, cwd, turn_id). */
  record: (body: TurnRecordBody, sync?: boolean) => Promise<void>;
  toolContext: Omit<ToolContext, "onOutput" | "signal">;
  /** Fires on interrupt, shutdown or EOF. */
  signal: AbortSignal;
  backoffScale?: number;
  /** The MCP servers' tools (docs/mcp.md); absent, the turn offers none. */
  mcp?: McpToolSource;
  /**
   * The workspace's checkpoints of this turn (checkpoints/turn-checkpoints.ts): the one before
   * it is being recorded while the first model call runs, and is awaited before the first tool.
   */
  checkpoint?: TurnCheckpoints;
  /** Aborted when the child shuts down (shutdown, EOF), beside `signal`'s interrupt. */
  closing?: AbortSignal;
  /** Runs between steps, when the last step's large strings have just died (heap-flags.ts). */
  betweenSteps?: () => void;
  /** The client negotiated `plans`: the turn offers `update_plan` (docs/turns.md, "Plans"). */
  plans?: boolean;
  /** The client negotiated `subagents`: the turn offers `agent` (docs/turns.md, "Subagents"). */
  subagents?: SubagentSetup | undefined;
  /** `turn.steer`'s inbox (steering.ts); with it the result carries `undelivered_steers`. */
  steers?: SteerInbox;
  /** The turn's hooks (docs/hooks.md); `UserPromptSubmit` ran before, its context is here. */
  hooks?: { turn: TurnHooks; promptContext: string; nested?: boolean };
  /** Whether results and `usage` events carry `cost_usd` (`session.manage` negotiated). */
  reportCost?: boolean;
  /** The active skills, with `skills` negotiated: the turn offers `skill` (docs/skills.md). */
  skills?: readonly Skill[];
}

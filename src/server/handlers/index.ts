import type { McpManager } from "../../agent/mcp/manager.js";
import type { McpToolSource } from "../../agent/mcp-tools/source.js";
import type { SessionRules } from "../../agent/rules/rule-book.js";
import type { ToolHostSource } from "../../agent/tools/tool-host.js";
import type { LoadedSettings } from "../../store/settings.js";
import type { ProjectTrust } from "../../trust/workspace-trust.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import { PRODUCTION_SEAM, type TestSeam } from "../test-seam.js";
import type { TurnFacts } from "../turn-facts.js";
import { childCheckpoints } from "./checkpoints.js";
import { childSandbox } from "./child-sandbox.js";
import { forkHandlers } from "./fork.js";
import { manageHandlers } from "./manage.js";
import { mcpHandlers } from "./mcp.js";
import { createModelServices } from "./model-services.js";
import { modelHandlers } from "./models.js";
import { revertHandlers } from "./revert.js";
import { ChildRules, rulesHandlers } from "./rules.js";
import { memoSandbox } from "./sandbox-answer.js";
import { sessionHandlers } from "./sessions.js";
import { settingsHandlers } from "./settings.js";
import { commandHandlers } from "./skills.js";
import { subagentHistoryHandlers } from "./subagent-history.js";
import { testHandlers } from "./testing.js";
import { trustHandlers } from "./trust.js";
import { turnHandlers } from "./turns.js";

/**
 * Every domain's handlers, merged. A method without a handler here is not implemented: its
 * capability is refused at initialize with `unsupported_capability`.
 */
export interface HandlerOptions {
  /**
   * What this child's tests changed (test-seam.ts): built by the stdio child from its
   * environment; `PRODUCTION_SEAM` when absent (the in-process ACP engine).
   */
  seam?: TestSeam;
  /** In-process use only (`mc-agent acp`): the frontend's own file and terminal I/O per turn. */
  toolHost?: ToolHostSource;
  /**
   * The child's MCP servers, made from its settings (docs/mcp.md); without it the `mcp`
   * capability is not implemented (the in-process ACP engine).
   */
  mcp?: (settings: LoadedSettings, trust: ProjectTrust) => McpManager;
  /**
   * In-process use only (`mc-agent acp`), instead of `mcp`: the MCP tools of the one ACP session
   * this server serves (servers shared with the workspace's other sessions, and its own), and
   * how to let go of them at shutdown (src/acp/shared-mcp.ts).
   */
  mcpSource?: (
    settings: LoadedSettings,
    trust: ProjectTrust,
  ) => { source: McpToolSource; close(): Promise<void> };
  /**
   * In-process use only (`mc-agent acp`): the session rules of the one ACP session this server
   * serves, kept by the ACP side across a close and reopen of the server (rules.ts ChildRules).
   */
  sessionRules?: SessionRules;
  /**
   * In-process use only (`mc-agent acp`): the frontend reports an invalid settings file itself
   * (once, with its line and column), so the engine does not warn on stderr at each start.
   */
  settingsReported?: boolean;
  /**
   * Start the sandbox's probe before anything else (child-sandbox.ts): when an `initialize`
   * that may negotiate `turn` is still to be answered. Otherwise it starts in the loop's first
   * check phase (turns.ts), behind the frames already waiting.
   */
  probeSandboxFirst?: boolean;
  /**
   * What the starter found out for an initialize negotiating `turn` (src/boot/starter.ts):
   * the sandbox's probes and the checkpoints' availability, adopted instead of found again.
   */
  turnFacts?: TurnFacts;
  /**
   * In-process use only (`mc-agent acp`): `turnFacts` whose probe memo answered and whose
   * probes have not started; the initialize answers from the memo (sandbox-answer.ts).
   */
  memoAnswers?: boolean;
}

export function buildHandlers(state: ServerState, options: HandlerOptions): HandlerTable {
  const memo = options.memoAnswers === true ? memoSandbox(options.turnFacts) : undefined;
  const probeFirst = options.probeSandboxFirst === true;
  const sandbox = childSandbox(state, probeFirst, options.turnFacts, memo !== undefined);
  if (options.turnFacts) childCheckpoints(state, options.turnFacts.checkpoints);
  const models = createModelServices(state, { warn: options.settingsReported !== true });
  sandbox.confirmNetwork(models.settings.global.sandbox?.network === true);
  const rules = new ChildRules(state, options.sessionRules);
  const mcp = options.mcp?.(models.settings, models.trust);
  const sessionMcp = options.mcpSource?.(models.settings, models.trust);
  if (sessionMcp) state.closers.push(() => sessionMcp.close());
  const mcpTools = mcp ?? sessionMcp?.source;
  const seam = options.seam ?? PRODUCTION_SEAM;
  return {
    ...sessionHandlers(state, seam),
    ...forkHandlers(state),
    ...subagentHistoryHandlers(state),
    ...manageHandlers(state, seam),
    ...modelHandlers(state, models, seam),
    ...settingsHandlers(state, models),
    ...trustHandlers(state, models),
    ...turnHandlers(
      state,
      models,
      {
        seam,
        ...(options.toolHost ? { toolHost: options.toolHost } : {}),
        ...(mcpTools ? { mcpTools } : {}),
        ...(memo !== undefined ? { memoSandbox: memo } : {}),
      },
      rules,
      sandbox,
    ),
    ...rulesHandlers(rules),
    ...commandHandlers(state),
    ...(mcp ? mcpHandlers(state, mcp) : {}),
    ...revertHandlers(state),
    ...(seam.testMethods ? testHandlers() : {}),
  };
}

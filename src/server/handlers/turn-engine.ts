// The turn engine's side of turn.start, loaded by turns.ts on a child's first turn.start:
// admission, the providers, the tools and the engine (with their SDKs, ajv and the search's
// ignore rules) are most of the child's code, and a child that never runs a turn, or has not
// yet, should not pay their loading at its start (docs/benchmarks.md, "Start-up profile").

import { untilAborted } from "../../agent/abort-bound.js";
import type { ApprovalBroker } from "../../agent/approvals.js";
import { loadReplayedImages } from "../../agent/attachments/image-context.js";
import type { PreparedImage } from "../../agent/attachments/prepare.js";
import { keepingImages } from "../../agent/attachments/store-images.js";
import { HISTORY_WRITE_FAILED_MESSAGE, runTurn, TurnWriteFailed } from "../../agent/engine.js";
import type { ChildHooks } from "../../agent/hooks/child-hooks.js";
import { readProjectInstructions } from "../../agent/instructions/agents-files.js";
import { FolderInstructions } from "../../agent/instructions/folder-instructions.js";
import type { McpToolSource } from "../../agent/mcp-tools/source.js";
import { createModelProvider } from "../../agent/providers/index.js";
import type { Sandbox } from "../../agent/sandbox/index.js";
import type { SteerInbox } from "../../agent/steering.js";
import { systemPrompt } from "../../agent/system-prompt.js";
import { credentialVariableNames, shellEnvironment } from "../../agent/tools/shell-env.js";
import type { ToolHostSource } from "../../agent/tools/tool-host.js";
import { TurnEvents } from "../../agent/turn-events.js";
import { collectBetweenSteps } from "../../boot/heap-flags.js";
import type { Credential } from "../../credentials/discovery.js";
import type { Provider } from "../../models/providers.js";
import { log } from "../../process/log.js";
import type { ParamsOf, ResultOf } from "../../protocol/methods.js";
import { type Permissions, TURN_EXTENSION } from "../../protocol/schemas/turns.js";
import type { HistoryMemo } from "../../sessions/history/admission-memo.js";
import type { TurnRecordBody } from "../../sessions/records/turn-records.js";
import { HistoryWriteFailed, RecordTooLarge } from "../../sessions/writing/history-write-errors.js";
import type { SessionWriter } from "../../sessions/writing/writer.js";
import type { RequestContext } from "../handler.js";
import type { ServerState } from "../state.js";
import type { TestSeam } from "../test-seam.js";
import type { ChildCheckpoints } from "./checkpoints.js";
import { historyMemoOf } from "./history-memo-of.js";
import type { ModelServices } from "./model-services.js";
import type { ChildRules } from "./rules.js";
import { turnSkills } from "./skill-turn.js";
import { subagentHistories } from "./subagent-histories.js";
import { subagentModel } from "./subagent-model.js";
import { type AdmittedTurn, admitTurn, FirstSaveFailed } from "./turn-admission.js";
import { childHooks, promptHooks } from "./turn-hooks.js";
import { TurnMemoryMode } from "./turn-memory-mode.js";

/** What turns.ts made at the child's start, handed to every turn. */
export interface TurnWorld {
  state: ServerState;
  services: ModelServices;
  options: { seam: TestSeam; toolHost?: ToolHostSource; mcpTools?: McpToolSource };
  rules: ChildRules;
  checkpoints: ChildCheckpoints;
  credentialVariables: string[];
  /** What the last turn's admission read of the history (made on the first turn). */
  historyMemo?: HistoryMemo;
  /** The child's hooks (docs/hooks.md), made on the first turn. */
  hooks?: ChildHooks;
}

/** What turns.ts registered for the turn before its admission. */
interface RegisteredTurn {
  turnId: string;
  signal: AbortSignal;
  approvals: ApprovalBroker;
  inSandbox: Sandbox | null;
  /** `turn.steer`'s inbox, when negotiated (steering.ts). */
  steers: SteerInbox | null;
  /** turn.start's images, checked and read (attachments/prepare.ts). */
  images: PreparedImage[];
}

/** The turn after its registration: admission, the engine, the history closed. */
export async function admitAndRun(
  world: TurnWorld,
  /** The params with `input` set (a custom command expanded: skills.ts). */
  params: ParamsOf<"turn.start"> & { input: string },
  ctx: RequestContext,
  turn: RegisteredTurn,
): Promise<ResultOf<"turn.start">> {
  const { state, services, options, rules, checkpoints, credentialVariables } = world;
  const { turnId, signal, approvals, inSandbox, steers } = turn;
  const { seam } = options;
  const subagents = state.negotiated.has("subagents");
  const memory = new TurnMemoryMode();
  const events = new TurnEvents(
    (event) => memory.after(untilAborted(ctx.notify(event), signal)),
    ctx.id,
    turnId,
    subagents ? { subagentId: null } : {},
  );
  const permissions = params.permissions ?? "ask";
  // UserPromptSubmit runs before anything is written: a block refuses the turn (hooks.md).
  world.hooks ??= childHooks(state, services.settings, services.trust, credentialVariables);
  const hooks = await promptHooks(
    world.hooks,
    state,
    params.input,
    permissions,
    signal,
    events,
    turnId,
  );
  let admitted: AdmittedTurn;
  try {
    world.historyMemo ??= historyMemoOf(state);
    admitted = await admitTurn(
      state,
      services,
      ctx.signal,
      world.historyMemo,
      { ...(seam.historyWrite ? { write: seam.historyWrite } : {}) },
      { images: turn.images.length > 0 },
    );
  } catch (error) {
    if (!(error instanceof FirstSaveFailed)) throw error;
    const failed = firstSaveFailed(error, turnId, permissions, inSandbox, events);
    return { ...(await failed), ...(steers ? { undelivered_steers: [] } : {}) };
  }
  if (admitted.createdSession) state.attachment = { session_id: admitted.sessionId, saved: true };
  memory.arm();
  try {
    const agentsMd = await readProjectInstructions(state.home, state.cwd);
    const folders = new FolderInstructions(state.cwd, admitted.history);
    await loadReplayedImages(state.home, admitted.history);
    const skills = await turnSkills(state);
    const now = new Date();
    const host = options.toolHost?.({ sessionId: admitted.sessionId, turnId });
    // Started now, beside the first model call; the first tool waits for it.
    const checkpoint = checkpoints.forTurn(permissions);
    const makeProvider = (provider: Provider, credential: Credential | null) =>
      createModelProvider({
        provider,
        credential,
        bounds: seam.turnBounds,
        home: state.home,
        env: state.env,
        // Renewed Codex tokens that could not be saved are said on stderr, as refresh does.
        log,
      });
    return await runTurn({
      turnId,
      sessionId: admitted.sessionId,
      createdSession: admitted.createdSession,
      input: params.input,
      ...(turn.images.length > 0 ? { images: turn.images } : {}),
      permissions,
      model: admitted.model,
      provider: makeProvider(admitted.provider, admitted.credential),
      system: (tools) =>
        systemPrompt({
          workspace: state.cwd,
          permissions,
          tools,
          agentsMd,
          now,
          skills: skills.listing,
        }),
      history: admitted.history,
      historyTruncated: admitted.historyTruncated,
      // An interrupted turn is not held by a client that stopped reading (abort-bound.ts).
      events,
      approvals,
      rules: { book: rules.book, session: rules.session() },
      record: keepingImages(state.home, turn.images, recorder(admitted.writer, turnId)),
      toolContext: {
        workspace: state.cwd,
        env: shellEnvironment(state.env, credentialVariables),
        credentialVariables: credentialVariableNames(credentialVariables),
        limits: TURN_EXTENSION,
        folderInstructions: (relative: string) => folders.forFile(relative),
        ...(inSandbox ? { sandbox: inSandbox } : {}),
        ...(host ? { host } : {}),
        ...(seam.readFileOpener ? { readFileOpener: seam.readFileOpener } : {}),
        skillFolders: skills.folders,
      },
      skills: skills.active,
      ...(options.mcpTools ? { mcp: options.mcpTools } : {}),
      signal,
      ...(checkpoint ? { checkpoint, closing: ctx.signal } : {}),
      backoffScale: seam.retryBackoffScale,
      betweenSteps: collectBetweenSteps,
      plans: state.negotiated.has("plans"),
      subagents: subagents
        ? subagentHistories(
            state.home,
            state.cwd,
            admitted.sessionId,
            recorder,
            seam.historyWrite,
            subagentModel(state, services, makeProvider),
          )
        : undefined,
      ...(steers ? { steers } : {}),
      ...(hooks ? { hooks } : {}),
      reportCost: state.negotiated.has("session.manage"),
    });
  } finally {
    memory.end();
    await admitted.writer.close();
    if (seam.holdTurnEnd) await aborted(signal);
  }
}

/**
 * The writer's append for one turn. A failed append ends the turn `history_write_failed`, and so
 * does a record over the 8 MiB record bound (a reply or a tool call input that large): it is
 * never written, and the turn still ends with its result rather than an internal error.
 */
function recorder(writer: SessionWriter, turnId: string) {
  return async (body: TurnRecordBody, sync = false) => {
    try {
      await writer.append(body, turnId, { sync });
    } catch (error) {
      if (error instanceof HistoryWriteFailed || error instanceof RecordTooLarge)
        throw new TurnWriteFailed();
      throw error;
    }
  };
}

/** The admitted turn whose lazy handle could not be saved: its start, then its failed result. */
async function firstSaveFailed(
  failure: FirstSaveFailed,
  turnId: string,
  permissions: Permissions,
  inSandbox: Sandbox | null,
  events: TurnEvents,
): Promise<ResultOf<"turn.start">> {
  await events.emit({
    type: "turn_started",
    session_id: failure.sessionId,
    model: failure.model.id,
    effort: failure.model.effort,
    permissions,
    created_session: false,
    sandbox: inSandbox?.kind ?? null,
    checkpoint: null,
  });
  return {
    turn_id: turnId,
    session_id: failure.sessionId,
    status: "failed",
    stop_reason: null,
    error: { code: "history_write_failed", message: HISTORY_WRITE_FAILED_MESSAGE },
    usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 },
    steps: 0,
  };
}

/** Resolves once the signal has fired (at once if it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}

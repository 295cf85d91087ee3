import { randomUUID } from "node:crypto";
import { ApprovalBroker } from "../../agent/approvals.js";
import { type PreparedImage, prepareAttachments } from "../../agent/attachments/prepare.js";
import type { McpToolSource } from "../../agent/mcp-tools/source.js";
import {
  type ChildSandbox,
  type SandboxKind,
  unavailableMessage,
} from "../../agent/sandbox/index.js";
import { SteerInbox } from "../../agent/steering.js";
import type { ToolHostSource } from "../../agent/tools/tool-host.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { ParamsOf } from "../../protocol/methods.js";
import type { HandlerTable } from "../handler.js";
import type { ServerState } from "../state.js";
import type { TestSeam } from "../test-seam.js";
import { childCheckpoints } from "./checkpoints.js";
import type { ModelServices } from "./model-services.js";
import type { ChildRules } from "./rules.js";
import { answerSandbox } from "./sandbox-answer.js";
import { turnInput } from "./skills.js";
import type { TurnWorld } from "./turn-engine.js";

interface RunningTurn {
  interrupt(): void;
  approvals: ApprovalBroker;
  /** With `turn.steer` negotiated: where its steers wait for the next boundary. */
  steers: SteerInbox | null;
}

/** turn.start, turn.interrupt, turn.steer and turn.approve (docs/turns.md). */
export function turnHandlers(
  state: ServerState,
  services: ModelServices,
  options: {
    seam: TestSeam;
    toolHost?: ToolHostSource;
    mcpTools?: McpToolSource;
    /** The sandbox the probe memo answered, its probes not started (sandbox-answer.ts). */
    memoSandbox?: SandboxKind | null;
  },
  rules: ChildRules,
  sandbox: ChildSandbox,
): HandlerTable {
  const running = new Map<string, RunningTurn>();
  const credentialVariables = services.providers.flatMap((p) =>
    p.api_key_env ? [p.api_key_env] : [],
  );
  // One real run of the sandbox per child (child-sandbox.ts, which may have started it before
  // the settings were read), without blocking its loop; an initialize negotiating `turn` waits
  // for it, or answers from the probe memo when handed one (sandbox-answer.ts).
  const answered = answerSandbox(state, sandbox, options.memoSandbox);
  const checkpoints = childCheckpoints(state);
  state.extensionExtras.turn = () => ({
    sandbox: answered(),
    checkpoints: checkpoints.availability,
  });
  const world: TurnWorld = { state, services, options, rules, checkpoints, credentialVariables };
  endSessionHooks(state, world);
  // Run by a big history's open while its loop waits for the worker reading the file's second
  // range (split-scan.ts): what the first turn.start would load and read before its admission's
  // passes, done there off that turn's path. Only warmed: a failure is the turn's to meet.
  state.warmFirstTurn = () => {
    loadEngine().catch(() => {});
    services.catalog.warm().catch(() => {});
  };
  return {
    "turn.start": async (params, ctx) => {
      const interrupt = new AbortController();
      const signal = AbortSignal.any([ctx.signal, interrupt.signal]);
      const turnId = `t-${randomUUID()}`;
      const approvals = new ApprovalBroker(turnId);
      // An interrupt, a shutdown or EOF settles every pending approval as cancelled first.
      signal.addEventListener("abort", () => approvals.cancelAll(), { once: true });
      // Registered before anything awaits: the frames of one read are dispatched in one go, so
      // an interrupt sent right behind turn.start finds its turn, which then is refused as it
      // would have been, or starts already interrupted.
      const steers = state.negotiated.has("turn.steer") ? new SteerInbox(turnId) : null;
      running.set(ctx.id, { interrupt: () => interrupt.abort(), approvals, steers });
      try {
        // The images are checked and read first: a bad one is `invalid_params`, nothing else done.
        const images = await turnImages(state, params.attachments);
        // Never silently unsandboxed: without a sandbox that starts, a `sandboxed` turn is
        // refused before anything is saved or run. By the real probe: the initialize may have
        // been answered from the probe memo while it ran (src/server/turn-facts.ts).
        if (params.permissions === "sandboxed") await sandbox.start();
        const inSandbox = params.permissions === "sandboxed" ? sandbox.sandbox() : null;
        if (params.permissions === "sandboxed" && !inSandbox)
          throw new ProtocolError(
            "sandbox_unavailable",
            unavailableMessage(sandbox.availability()),
          );
        // A custom command is expanded here, before anything is saved (docs/skills.md).
        const input = await turnInput(state, params);
        const { admitAndRun } = await loadEngine();
        const turn = { turnId, signal, approvals, inSandbox, steers, images };
        return await admitAndRun(world, { ...params, input }, ctx, turn);
      } finally {
        // Removed last, after the history is closed: the dispatcher writes this handler's answer
        // in the microtask right after it returns, and frames are read only between macrotasks,
        // so no turn.interrupt can find the turn gone before its result is written (it answers
        // `interrupting`, and the result says what the history says).
        running.delete(ctx.id);
      }
    },

    "turn.interrupt": (params) => {
      const turn = running.get(params.request_id);
      if (!turn) throw new ProtocolError("turn_missing");
      turn.interrupt();
      return { state: "interrupting", request_id: params.request_id };
    },

    // Accepted only while the engine runs the turn (steering.ts): not while it is admitted or
    // queued, nor once it ends.
    "turn.steer": (params) => {
      const steerId = running.get(params.request_id)?.steers?.add(params.input);
      if (!steerId) throw new ProtocolError("turn_missing");
      return { steer_id: steerId, state: "accepted" };
    },

    "turn.approve": (params) => {
      const options = params.path_glob === undefined ? {} : { path_glob: params.path_glob };
      for (const turn of running.values()) {
        const outcome = turn.approvals.decide(params.approval_id, params.decision, options);
        if (outcome === "applied")
          return { approval_id: params.approval_id, decision: params.decision, state: "applied" };
        if (outcome === "no_rule") throw new ProtocolError("invalid_params", NO_RULE);
        if (outcome === "bad_scope") throw new ProtocolError("invalid_params", BAD_SCOPE);
      }
      throw new ProtocolError("approval_missing");
    },
  };
}

/** turn.start's `attachments`, only where `attachments` was negotiated (attachments/prepare.ts). */
async function turnImages(
  state: ServerState,
  attachments: ParamsOf<"turn.start">["attachments"],
): Promise<PreparedImage[]> {
  if (attachments === undefined) return [];
  if (!state.negotiated.has("attachments")) throw new ProtocolError("unsupported_capability");
  return prepareAttachments(attachments, state.cwd);
}

const NO_RULE =
  "That approval offers no rule to keep (its rule is null): decide allow_once, allow_session or deny.";
const BAD_SCOPE =
  "path_glob applies to an edit's allow_session, allow_always or deny_always, and must match its path.";

/** `SessionEnd` hooks (docs/hooks.md) when the attachment ends: detach, shutdown or EOF. */
function endSessionHooks(state: ServerState, world: TurnWorld): void {
  const detached = new AbortController();
  state.attachmentEnds = () => void world.hooks?.end("detach", detached.signal);
  state.closers.push(async () => {
    detached.abort();
    await world.hooks?.end("exit", AbortSignal.timeout(SESSION_END_MS));
  });
}

/**
 * How long `SessionEnd` hooks may run at shutdown: then SIGTERM, and SIGKILL a second later,
 * within the shutdown's `cleanup_ms` (2 s).
 */
const SESSION_END_MS = 800;

let engine: Promise<typeof import("./turn-engine.js")> | null = null;

/**
 * The engine's module, imported on the first turn.start (a chunk of its own in the bundle, see
 * turn-engine.ts). The turn is registered before this await, so an interrupt sent right behind
 * turn.start finds it while it loads. A failed import is not kept: the next turn tries again.
 */
function loadEngine(): Promise<typeof import("./turn-engine.js")> {
  engine ??= import("./turn-engine.js").catch((error: unknown) => {
    engine = null;
    throw error;
  });
  return engine;
}

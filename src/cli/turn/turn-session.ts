import {
  type AgentClient,
  adviceFor,
  type Capability,
  type CatalogStatusRead,
  isRemote,
  nextStepForModel,
  type Permissions,
} from "../../client/index.js";
import { PERMISSIONS } from "../../protocol/schemas/turns.js";
import { UsageError } from "../args.js";
import { connectWith } from "../connect.js";
import { ActionableError } from "../failure.js";
import { resolveSessionRef } from "../sessions/session-ref.js";
import type { Terminal } from "../terminal.js";

/** The options exec and chat share. */
export const TURN_OPTIONS = {
  permissions: { type: "string", short: "p" },
  session: { type: "string", short: "s" },
  model: { type: "string", short: "m" },
  effort: { type: "string", short: "e" },
} as const;

export const TURN_OPTIONS_HELP = [
  "  -p, --permissions <p>  read_only | ask (default) | accept_edits | sandboxed | full_access",
  "                         (sandboxed: commands run unasked in an OS sandbox; see mc-agent doctor)",
  "  -s, --session <id>     Continue a saved session of this folder (its ID, or a unique start of",
  "                         it); default: a new one",
  '  -m, --model <id>       Use this model (one of the choices "mc-agent models" lists) instead of',
  '                         the configured one ("model" in MC_HOME/config.json)',
  "  -e, --effort <level>   With --model: its reasoning effort (default: the model's own)",
];

interface TurnSession {
  client: AgentClient;
  sessionId: string;
  /** False for a new lazy session: nothing is on disk until its first turn. */
  saved: boolean;
  /** The model turns will use, and its effort (null: the model has none). */
  model: string;
  effort: string | null;
}

interface TurnSessionOptions {
  /** A saved session: its ID or a unique start of it. */
  session?: string;
  /** Chooses a saved session once the child is up (resume's picker), instead of `session`. */
  pick?: (client: AgentClient) => Promise<string>;
  model?: string;
  effort?: string;
  /** Negotiated besides the turn's own (chat's slash commands). */
  capabilities?: Capability[];
  /** Asked for too, but done without when the child does not offer them (connectWith). */
  optional?: Capability[];
}

/** Reads --permissions (default: the backend's `ask`). */
export function permissionsOf(raw: string | boolean | undefined): Permissions | undefined {
  if (raw === undefined || typeof raw === "boolean") return undefined;
  const known: readonly string[] = PERMISSIONS;
  if (!known.includes(raw))
    throw new UsageError(`--permissions must be one of ${PERMISSIONS.join(", ")}`);
  return raw as Permissions;
}

/**
 * Starts the child for this folder, attaches a session (a new lazy one, saved by its first
 * turn, or the exact `--session`), and makes sure a usable model is selected: `--model`, else
 * the child's initial selection from settings. Says exactly what to do when there is none.
 */
export async function openTurnSession(
  term: Terminal,
  options: TurnSessionOptions,
): Promise<TurnSession> {
  if (options.effort !== undefined && options.model === undefined)
    throw new UsageError("--effort goes with --model");
  const saved = options.session !== undefined || options.pick !== undefined;
  const capabilities = new Set<Capability>([
    ...(saved
      ? (["session.open", "session.discover", "operation.cancel"] as const)
      : (["session.create"] as const)),
    "model.catalog.status",
    "turn",
    // The backend's next step on a refused turn (no credentials, ...), worded by the SDK.
    "errors.recovery",
    // The model's checklist, shown as it changes (plan-block.ts).
    "plans",
    // Helpers with their own context, one folded line each (subagent-line.ts).
    "subagents",
    ...(options.model ? (["model.select"] as const) : []),
    ...(options.capabilities ?? []),
  ]);
  const client = await connectWith(term, [...capabilities], options.optional ?? []);
  try {
    const sessionId = await attach(term, client, options);
    const selection = await chooseModel(client, options);
    return { client, sessionId, saved, ...selection };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** The exact open of the chosen or named session, or a new lazy one. */
async function attach(
  term: Terminal,
  client: AgentClient,
  options: TurnSessionOptions,
): Promise<string> {
  if (options.pick) return (await client.open(await options.pick(client))).id;
  if (options.session !== undefined)
    return (await client.open(await resolveSessionRef(term, client, options.session))).id;
  return (await client.call("session.create", {})).session.id;
}

async function chooseModel(
  client: AgentClient,
  options: TurnSessionOptions,
): Promise<{ model: string; effort: string | null }> {
  const catalog = await client.catalogStatus();
  // --model and --effort, else the child's initial selection (the settings' preference).
  const { model: wanted, effort } = options.model
    ? { model: options.model, effort: options.effort ?? null }
    : catalog.selection;
  const choice = catalog.choices.find((c) => c.id === wanted);
  if (wanted === null || !choice) throw noModel(catalog, wanted);
  if (options.model) await selectExplicitly(client, choice.id, effort, catalog);
  // What turns will use: the chosen effort, else the model's default (none without efforts).
  return {
    model: choice.id,
    effort: choice.efforts.length === 0 ? null : (effort ?? choice.default_effort),
  };
}

async function selectExplicitly(
  client: AgentClient,
  model: string,
  effort: string | null,
  catalog: CatalogStatusRead,
): Promise<void> {
  try {
    await client.select(model, effort, catalog.guard);
  } catch (error) {
    if (isRemote(error, "invalid_params"))
      throw new UsageError(`${model} does not offer the effort "${effort}"`);
    throw error;
  }
}

function noModel(catalog: CatalogStatusRead, wanted: string | null): ActionableError {
  const ids = catalog.choices.map((c) => c.id);
  const what =
    wanted === null
      ? "no model is selected"
      : `the model "${wanted}" is not a selectable choice here`;
  // The same decision and words as the backend's refused turn under errors.recovery.
  if (ids.length === 0)
    return new ActionableError(
      "model_unavailable",
      `${what}, and no model is selectable yet`,
      `${adviceFor("model_unavailable", nextStepForModel(catalog, wanted))} "mc-agent models" shows every provider's status.`,
    );
  const shown = ids.length > 5 ? `${ids.slice(0, 5).join(", ")}, …` : ids.join(", ");
  return new ActionableError(
    "model_unavailable",
    what,
    `Pass --model <id> or set "model" in MC_HOME/config.json (default ~/.mc) to one of: ${shown} (all: "mc-agent models").`,
  );
}

import { contextFromReplay } from "../../agent/context.js";
import type { ContextItem } from "../../agent/providers/provider.js";
import { type Credential, discoverCredential } from "../../credentials/discovery.js";
import type { Provider } from "../../models/providers.js";
import { modelUnavailable } from "../../models/selection.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { HistoryMemo } from "../../sessions/history/admission-memo.js";
import { realClock, Slicer } from "../../sessions/slicer.js";
import { HistoryWriteFailed } from "../../sessions/writing/history-write-errors.js";
import { type AcquireOptions, SessionWriter } from "../../sessions/writing/writer.js";
import type { ModelCost } from "../../store/catalog-cache.js";
import { sessionsDir } from "../../store/layout.js";
import { WriterLock } from "../../store/writer-lock.js";
import type { ServerState } from "../state.js";
import { checkBudget } from "./budget.js";
import type { ModelServices } from "./model-services.js";

/** Everything a turn needs once it is admitted. */
export interface AdmittedTurn {
  sessionId: string;
  createdSession: boolean;
  model: {
    id: string;
    name: string;
    effort: string | null;
    contextWindow: number | null;
    price: ModelCost | null;
  };
  provider: Provider;
  credential: Credential | null;
  writer: SessionWriter;
  history: ContextItem[];
  /** The replay was cut to its bound: the turn compacts before its first model call. */
  historyTruncated: boolean;
}

/**
 * A lazy handle's history could not be created (a full disk at its `session_meta`): everything
 * else admitted the turn, so it answers a `history_write_failed` result, and the handle stays
 * unsaved (the writer removed the file).
 */
export class FirstSaveFailed extends Error {
  constructor(
    readonly sessionId: string,
    readonly model: AdmittedTurn["model"],
  ) {
    super("the session's history could not be created");
  }
}

/**
 * The check before the lock's own signal: aborted with the admission's, or by `stop()` once
 * the admission ended (a refusal before the check's verdict was taken leaves nothing reading).
 */
class BesideSignal {
  private readonly controller = new AbortController();
  private readonly follow = () => this.controller.abort();

  constructor(private readonly outer: AbortSignal) {
    if (outer.aborted) this.controller.abort();
    else outer.addEventListener("abort", this.follow, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(): void {
    this.outer.removeEventListener("abort", this.follow);
    this.controller.abort();
  }
}

/** What the turn brings to its admission. */
export interface AdmissionInput {
  /** turn.start carries images (refused for a model known not to read them). */
  images: boolean;
  /**
   * Started once the lock is held, before the pass under it: the caller's own reads for the
   * turn (its project instructions), which then go on beside that pass (issue 44).
   */
  onLocked?: () => void;
}

/** A live writer holds the session (`session_locked`). */
const LOCKED = Symbol("locked");

/**
 * The slices of the check before the lock: short, so that the catalog's snapshot, whose file
 * reads are under way beside it, goes on between them (2 ms slices held its reads back).
 */
const BESIDE_SLICE_MS = 0.1;

/**
 * The saved history judged before the lock, so that these refusals write nothing (not even a
 * lock made and removed again: a lock is an inventory change, turns.md section 8); under the
 * lock they are checked again. A live writer first (then the history is not read), then every
 * record: one bad line or foreign cwd anywhere refuses the history, so no cheaper test decides
 * these refusals (the memo reads every byte too, and parses only records it has not seen).
 * Returns the session's known cost (with `costs`) or LOCKED.
 */
async function checkSaved(
  state: ServerState,
  memo: HistoryMemo,
  id: string,
  signal: AbortSignal,
  costs: boolean,
): Promise<number | typeof LOCKED> {
  if (await WriterLock.heldElsewhere(sessionsDir(state.home), id)) return LOCKED;
  const slicer = new Slicer(signal, realClock, BESIDE_SLICE_MS);
  return memo.exact(state.home, state.cwd, id, slicer, costs);
}

/** The pass under the lock's slicer: short slices when `beside` starts work to share the loop. */
function besideSlicer(signal: AbortSignal, beside: (() => void) | undefined): Slicer {
  if (!beside) return new Slicer(signal);
  beside();
  return new Slicer(signal, realClock, BESIDE_SLICE_MS);
}

/**
 * turns.md section 3's refusals, in order, each before anything is written: no attachment, no
 * usable selection (against a fresh catalog snapshot), no credentials, a live writer, a saved
 * history that no longer revalidates. On success the caller owns the writer (and its lock).
 * Both reads of a saved history go through `memo`: each still reads every byte, but parses only
 * the records appended since the last admission read it (sessions/history/admission-memo.ts).
 */
export async function admitTurn(
  state: ServerState,
  services: ModelServices,
  signal: AbortSignal,
  memo: HistoryMemo,
  writerOptions: Pick<AcquireOptions, "write"> = {},
  input: AdmissionInput = { images: false },
): Promise<AdmittedTurn> {
  const attachment = state.attachment;
  if (attachment === null) throw new ProtocolError("attachment_required");
  const id = attachment.session_id;
  const costs = services.settings.global.budget_usd !== undefined;
  // The saved history's check before the lock starts now, beside the catalog's snapshot: its
  // reads and fingerprints (the one part of an admission that grows with the history) run in
  // short slices while the snapshot's file reads are under way. It writes nothing and its
  // verdict is taken below, in the refusals' order, so the answer is the same as run in turn.
  // A refusal before its verdict is taken stops it (it must not read on after the answer).
  const beside = new BesideSignal(signal);
  const checked = attachment.saved ? checkSaved(state, memo, id, beside.signal, costs) : null;
  checked?.catch(() => {});
  try {
    const begun = { attachment, checked };
    return await admitChecked(state, services, signal, memo, begun, writerOptions, input);
  } finally {
    beside.stop();
  }
}

/** admitTurn once the check before the lock has started (`checked`, for a saved history). */
async function admitChecked(
  state: ServerState,
  services: ModelServices,
  signal: AbortSignal,
  memo: HistoryMemo,
  begun: {
    attachment: NonNullable<ServerState["attachment"]>;
    checked: Promise<number | typeof LOCKED> | null;
  },
  writerOptions: Pick<AcquireOptions, "write">,
  input: AdmissionInput,
): Promise<AdmittedTurn> {
  const { attachment, checked } = begun;
  const selected = state.selection;
  const id = attachment.session_id;
  const budget = services.settings.global.budget_usd;
  // The snapshot first even without a selection: the refusal's next step is read from it.
  const snapshot = await services.catalog.fresh();
  const choice = snapshot.choices.find((c) => c.id === selected.model);
  const provider = services.providers.find((p) => p.id === choice?.provider);
  if (!choice || !provider) throw modelUnavailable(snapshot, selected.model);
  // Known modalities without images refuse them here; unknown ones send (the provider says).
  const modalities = snapshot.modalities.get(choice.id) ?? null;
  if (input.images && modalities !== null && !modalities.includes("image"))
    throw new ProtocolError("input_unsupported");
  const credential = await discoverCredential(provider, { env: state.env, paths: services.paths });
  if (credential === null)
    throw new ProtocolError("authentication_unavailable", undefined, {
      recovery: "configure_authentication",
      provider: provider.id,
    });
  if (signal.aborted) throw new ProtocolError("shutting_down");
  if (checked) {
    const saved = await checked;
    if (saved === LOCKED) throw new ProtocolError("session_locked");
    checkBudget(budget, saved);
  }
  const effort = choice.efforts.length === 0 ? null : (selected.effort ?? choice.default_effort);
  const model = {
    id: choice.id,
    name: choice.model,
    effort,
    contextWindow: snapshot.contextWindows.get(choice.id) ?? null,
    price: snapshot.prices.get(choice.id) ?? null,
  };
  let writer: SessionWriter;
  try {
    writer = await SessionWriter.acquire({
      home: state.home,
      cwd: state.cwd,
      id,
      create: !attachment.saved,
      ...writerOptions,
    });
  } catch (error) {
    if (error instanceof HistoryWriteFailed && !attachment.saved)
      throw new FirstSaveFailed(id, model);
    throw error;
  }
  try {
    // Revalidated under the lock (another writer may have appended since), and the replay
    // collected from the same pass over the history.
    const replay = attachment.saved
      ? await memo.exactReplay(state.home, state.cwd, id, besideSlicer(signal, input.onLocked))
      : { records: [], truncated: false };
    return {
      sessionId: id,
      createdSession: !attachment.saved,
      model,
      provider,
      credential,
      writer,
      history: contextFromReplay(replay),
      historyTruncated: replay.truncated,
    };
  } catch (error) {
    await writer.close();
    throw error;
  }
}

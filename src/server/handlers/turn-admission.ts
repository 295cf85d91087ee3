import { contextFromReplay } from "../../agent/context.js";
import type { ContextItem } from "../../agent/providers/provider.js";
import { type Credential, discoverCredential } from "../../credentials/discovery.js";
import type { Provider } from "../../models/providers.js";
import { modelUnavailable } from "../../models/selection.js";
import { ProtocolError } from "../../protocol/codes.js";
import type { HistoryMemo } from "../../sessions/history/admission-memo.js";
import { Slicer } from "../../sessions/slicer.js";
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
  input: { images: boolean } = { images: false },
): Promise<AdmittedTurn> {
  const attachment = state.attachment;
  if (attachment === null) throw new ProtocolError("attachment_required");
  const selected = state.selection;
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
  const id = attachment.session_id;
  // Judged before the lock too, so that these refusals write nothing (not even a lock made and
  // removed again: a lock is an inventory change, turns.md section 8), in their order; under the
  // lock below they are checked again. Every record is read here: one bad line or foreign cwd
  // anywhere refuses the history, so no cheaper test decides these refusals (the memo reads
  // every byte too, and parses only records it has not seen).
  if (attachment.saved) {
    if (await WriterLock.heldElsewhere(sessionsDir(state.home), id))
      throw new ProtocolError("session_locked");
    const budget = services.settings.global.budget_usd;
    const cost = await memo.exact(
      state.home,
      state.cwd,
      id,
      new Slicer(signal),
      budget !== undefined,
    );
    checkBudget(budget, cost);
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
      ? await memo.exactReplay(state.home, state.cwd, id, new Slicer(signal))
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

import { type CachedModel, explainRefresh, readCached } from "../../client/index.js";
import { refreshWithProgress } from "../commands/refresh.js";
import { connect } from "../connect.js";
import { ActionableError } from "../failure.js";
import type { Terminal } from "../terminal.js";
import type { LineReader } from "../turn/reader-types.js";
import { pickIndex } from "./ask.js";
import type { SetupAnswers } from "./choose.js";

/** The most models the list shows; any cached ID may still be typed out. */
const LIST_ROWS = 40;

interface RefreshPlan {
  /** The child's environment: MC_HOME is a staging home for a provider the file lacks. */
  env: NodeJS.ProcessEnv;
  provider: string;
  /** The settings' current `model`: the default when the provider lists it. */
  current: string | null;
  answers: SetupAnswers;
}

/**
 * Refreshes the provider's catalog through a child (the deliberate refresh: progress, Ctrl-C
 * cancels through the protocol) and picks one of its cached models. The model's ID, or the exit
 * code when the refresh did not succeed (its outcome and next step are said).
 */
export async function refreshAndPick(
  term: Terminal,
  reader: LineReader,
  plan: RefreshPlan,
): Promise<string | number> {
  const { provider } = plan;
  const client = await connect(
    term,
    ["model.refresh", "model.cached", "model.catalog", "model.catalog.status", "operation.cancel"],
    { env: plan.env },
  );
  let models: CachedModel[];
  try {
    const report = await refreshWithProgress(term, client, provider);
    const sentence = explainRefresh(report.result);
    if (report.result.outcome !== "refreshed") {
      term.line(term.red(sentence));
      term.line(`Nothing was written. Fix that, then run "mc-agent setup" again.`);
      return 1;
    }
    term.line(term.green(sentence));
    models = (await readCached(client)).models.filter((m) => m.provider === provider);
  } finally {
    await client.close();
  }
  if (models.length === 0)
    throw new ActionableError(
      "catalog_empty",
      `${provider} lists no model`,
      'Add a model to it (for Ollama: ollama pull qwen2.5-coder), then run "mc-agent setup" again.',
    );
  return pickModel(term, reader, models, plan);
}

async function pickModel(
  term: Terminal,
  reader: LineReader,
  models: CachedModel[],
  plan: RefreshPlan,
): Promise<string> {
  const fallback = defaultIndex(models, plan.current);
  const wanted = plan.answers.model;
  let index: number;
  if (wanted !== null) {
    index = models.findIndex((m) => m.id === wanted || m.model === wanted);
    if (index < 0)
      throw new ActionableError(
        "model_unavailable",
        `${plan.provider} does not list "${wanted.slice(0, 256)}" (${models.length} models)`,
        `"mc-agent setup --provider ${plan.provider}" without --model lists them.`,
      );
  } else if (plan.answers.yes) index = fallback;
  else {
    const shown = models.slice(0, LIST_ROWS);
    shown.forEach((m, i) => {
      const mark = i === fallback ? "*" : " ";
      const name = m.name && m.name !== m.model ? term.dim(`  ${m.name}`) : "";
      term.line(`${mark} ${String(i + 1).padStart(2)}  ${m.model}${name}`);
    });
    if (models.length > shown.length)
      term.line(`… ${models.length - shown.length} more (type a model's ID)`);
    const chosen = models[fallback] as CachedModel;
    index = await pickIndex(
      term,
      reader,
      `Use which model? (number or ID; Enter: ${chosen.model}, marked *) `,
      models.map((m) => m.model),
      fallback,
    );
  }
  const picked = models[index] as CachedModel;
  term.line(`Model: ${picked.id}`);
  return picked.id;
}

/**
 * The sensible default: the model already chosen, else one already enabled, else the first the
 * provider lists (the cache keeps the provider's own order).
 */
function defaultIndex(models: CachedModel[], current: string | null): number {
  const chosen = models.findIndex((m) => m.id === current);
  if (chosen >= 0) return chosen;
  const enabled = models.findIndex((m) => m.state === "enabled");
  return Math.max(0, enabled);
}

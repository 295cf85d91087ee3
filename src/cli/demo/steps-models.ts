import {
  type CatalogStatusRead,
  ClientError,
  explain,
  explainRefresh,
} from "../../client/index.js";
import { nextStep } from "../commands/next-step.js";
import { type DemoContext, heading, offers, say } from "./context.js";
import { writeSettings } from "./home.js";

/** Step 3: cached catalog status, explained per provider. */
export async function explainCatalog(ctx: DemoContext): Promise<CatalogStatusRead | null> {
  const { term, client } = ctx;
  heading(term, 3, "Read the cached catalog status and explain it");
  say(term, "model.catalog.status reads only caches: no provider is contacted.");
  if (!offers(ctx, ["model.catalog.status"], "the catalog status")) return null;
  const before = ctx.provider.requests();
  const status = await client.catalogStatus();
  printProviders(ctx, status);
  term.line(
    `  Selectable now: ${status.choices.map((c) => c.id).join(", ") || "none (no valid cache yet)"}`,
  );
  term.line(`  Provider requests so far: ${ctx.provider.requests() - before}`);
  return status;
}

function printProviders(ctx: DemoContext, status: CatalogStatusRead): void {
  for (const p of status.providers) {
    const e = explain(p);
    ctx.term.line(`  ${e.sentence}`);
    const step = nextStep(p);
    if (step && p.relevant) ctx.term.line(`    → ${step}`);
  }
}

/** Step 4: a deliberate refresh, reloaded status, explicit selection with a fresh guard. */
export async function refreshAndSelect(
  ctx: DemoContext,
  before: CatalogStatusRead | null,
): Promise<boolean> {
  const { term, client } = ctx;
  heading(term, 4, "Deliberate refresh, reload, explicit selection");
  say(
    term,
    'Only a deliberate user action sends model.refresh. The demo now plays the user running\n"mc-agent refresh demo".',
  );
  if (
    !offers(
      ctx,
      ["model.refresh", "model.catalog", "model.catalog.status", "model.select"],
      "refresh and selection",
    )
  )
    return false;
  const asked = ctx.provider.requests();
  const report = await client.refresh("demo");
  term.line(`  model.refresh → ${explainRefresh(report.result)}`);
  term.line(
    `  The local provider answered ${ctx.provider.requests() - asked} request(s) (models, then enrichment).`,
  );
  if (!report.status || !report.catalog || !report.guard) {
    term.line(term.yellow(`  Reloading failed: ${report.reloadError?.message ?? "no catalog"}`));
    return false;
  }
  printProviders(ctx, report.status);
  const choices = report.catalog.choices.map((c) => c.id);
  term.line(`  Selectable now: ${choices.join(", ") || "none"}`);
  say(term, "demo-2 came back from the provider too, but it is not enabled: not selectable.");
  if (before) {
    try {
      await client.select("demo/demo-1", "high", before.guard);
    } catch (error) {
      if (!(error instanceof ClientError && error.code === "stale_guard")) throw error;
      term.line(
        "  A selection with the guard read before the refresh is refused (stale_guard), unsent.",
      );
    }
  }
  const effort = report.catalog.choices
    .find((c) => c.id === "demo/demo-1")
    ?.efforts.includes("high")
    ? "high"
    : null;
  say(
    term,
    `The user explicitly chooses demo/demo-1${effort ? " with effort high" : ""}; nothing chose it for them.`,
  );
  const selected = await client.select("demo/demo-1", effort, report.guard);
  term.line(
    `  model.select → ${selected.selection.model} (${selected.selection.effort ?? "default effort"})`,
  );
  return true;
}

/** Step 6: settings change, then a fresh child reads them. */
export async function restartAfterSettings(ctx: DemoContext): Promise<void> {
  const { term, client } = ctx;
  heading(term, 6, "Change settings, restart the child");
  say(
    term,
    "Settings are read when a child starts. The demo enables demo-2 in config.json (as a\nuser would), then restarts the child; catalog reloads alone never reload settings.",
  );
  if (!offers(ctx, ["model.catalog"], "the settings reload")) return;
  writeSettings(ctx.fixture.home, ctx.provider.url, ["demo/demo-1", "demo/demo-2"]);
  const stale = await client.catalog();
  term.line(`  Same child, catalog reread: ${stale.choices.map((c) => c.id).join(", ") || "none"}`);
  await client.restart();
  const fresh = await client.catalog();
  term.line(
    `  New child (pid ${client.pid}), catalog: ${fresh.choices.map((c) => c.id).join(", ") || "none"}`,
  );
  const status = await client.call("status", {});
  term.line(
    `  The new child starts unattached with the settings' selection: ${status.selection.model ?? "none"}`,
  );
}

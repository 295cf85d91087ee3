import {
  type CachedRead,
  type CatalogStatusRead,
  explain,
  readCached,
} from "../../client/index.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { plainLength, type Terminal, table } from "../terminal.js";
import { printCached } from "./models-cached.js";
import { modelsEnableCommand } from "./models-enable.js";
import { nextStep, stepToFirstModel } from "./next-step.js";

export const modelsCommand: Command = {
  spec: {
    usage: "mc-agent models [--json] | mc-agent models enable <provider/model> [--default]",
    summary:
      "Show the cached model catalog: each provider's status and next step, every cached model (enabled or not), and the choices.",
    help: [
      "Options:",
      "  --json    Print providers, cached models, choices, selection and notices as JSON",
      "  -h, --help",
      "",
      'Reads only cached catalogs (no provider request); "mc-agent refresh <provider>" fills one.',
      'Run "mc-agent models enable --help" to enable a cached model.',
    ].join("\n"),
    options: { json: { type: "boolean" } },
  },
  subcommands: { enable: modelsEnableCommand },
  async run(args, term) {
    const client = await connect(term, [
      "model.catalog.status",
      "model.cached",
      "operation.cancel",
    ]);
    try {
      const [status, cached] = await interruptible(term, (signal) =>
        Promise.all([client.catalogStatus({ signal }), readCached(client, { signal })]),
      );
      if (args.values.json) term.line(JSON.stringify(jsonOf(status, cached), null, 2));
      else printStatus(term, status, cached);
      return 0;
    } finally {
      await client.close();
    }
  },
};

function jsonOf(status: CatalogStatusRead, cached: CachedRead): unknown {
  return {
    providers: status.providers.map((p) => ({
      ...p,
      explanation: explain(p).sentence,
      next_step: nextStep(p),
      cached_models: cached.providers.find((c) => c.provider === p.provider)?.models ?? 0,
    })),
    cached: cached.models,
    choices: status.choices,
    selection: status.selection,
    notices: status.notices,
  };
}

/** Provider statuses with explanations and next steps, then the choices and the selection. */
function printStatus(term: Terminal, status: CatalogStatusRead, cached: CachedRead): void {
  term.line(term.bold("Providers"));
  if (status.providers.length === 0) term.line("  (none reported)");
  for (const provider of status.providers) {
    const e = explain(provider);
    const mark =
      provider.recovery !== "none"
        ? term.yellow("needs action")
        : provider.relevant
          ? term.green("ok")
          : term.dim("not in use");
    term.line(`  ${term.bold(provider.provider)}  ${mark}`);
    term.line(`    ${e.sentence}`);
    const step = nextStep(provider);
    if (step) term.line(`    Next step: ${step}.`);
  }
  term.line();
  printCached(term, cached);
  term.line();
  printChoices(term, status);
  if (status.notices.some((n) => n.code === "configuration_invalid"))
    term.line(term.yellow("The backend settings file is invalid; built-in defaults are in use."));
  term.line(
    term.dim(
      "Settings changes take effect in a fresh backend child (each mc-agent command starts one).",
    ),
  );
}

function printChoices(term: Terminal, status: CatalogStatusRead): void {
  term.line(term.bold("Selectable models"));
  if (status.choices.length === 0)
    term.line("  (none: no enabled model has a valid cached catalog)");
  const rows = status.choices.map((c) => {
    const efforts = c.efforts.length ? c.efforts.join(", ") : "-";
    const fallback = c.default_effort ? ` (default ${c.default_effort})` : "";
    return [`  ${c.id}`, c.name ?? "", `efforts: ${efforts}${fallback}`];
  });
  for (const line of table(rows, plainLength)) term.line(line);
  const { model, effort } = status.selection;
  term.line(
    model
      ? `Your model: ${model}${effort ? ` (effort ${effort})` : ""}, as your settings say.`
      : "No model chosen yet: mc-agent never picks one for you.",
  );
  if (status.choices.length === 0) term.line(`Next step: ${stepToFirstModel(status.providers)}.`);
  else if (!model)
    term.line(
      'To choose one, pass -m <id> to "mc-agent exec" or "mc-agent chat", or run "mc-agent models enable <id> --default".',
    );
}

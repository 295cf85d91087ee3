import type { AgentClient } from "../../client/index.js";
import { explain, explainRefresh, isRemote } from "../../client/index.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import type { Terminal } from "../terminal.js";
import { nextStep } from "./next-step.js";
import { showWaiting } from "./refresh-wait.js";

export const refreshCommand: Command = {
  spec: {
    usage: "mc-agent refresh <provider> [--json]",
    summary:
      "Deliberately refresh one provider's model catalog from the provider, then show the reloaded status.",
    help: [
      "Options:",
      "  --json    Print the outcome and the reloaded status as JSON",
      "  -h, --help",
      "",
      "Ctrl-C cancels through the protocol and waits for the backend to confirm (exit 130). A",
      "refresh still without an answer after 5 s says how long it has waited. A refresh never",
      "changes settings, enabled models or the selection.",
    ].join("\n"),
    options: { json: { type: "boolean" } },
    positionals: ["provider"],
  },
  async run(args, term) {
    const provider = args.positionals[0] as string;
    const client = await connect(term, [
      "model.refresh",
      "model.catalog",
      "model.catalog.status",
      "operation.cancel",
    ]);
    try {
      return await refreshAndReport(term, client, provider, args.values.json === true);
    } finally {
      await client.close();
    }
  },
};

/**
 * The deliberate refresh with its progress (spinner, elapsed time) and Ctrl-C, which cancels it
 * through the protocol: then this throws the backend's `operation_cancelled`. setup uses it too.
 */
export async function refreshWithProgress(
  term: Terminal,
  client: AgentClient,
  provider: string,
): Promise<RefreshReport> {
  let cancelling = false;
  let stopWaiting = () => {};
  try {
    return await interruptible(
      term,
      (signal) => {
        // Only now, with the Ctrl-C handler installed, may the line promise that Ctrl-C cancels:
        // a person (or a test) answering the line at once must not meet the default SIGINT.
        term.startSpinner(`Refreshing ${provider}… (Ctrl-C cancels)`);
        stopWaiting = showWaiting(term, provider, () => cancelling);
        return client.refresh(provider, { signal });
      },
      () => {
        cancelling = true;
        term.startSpinner("Cancelling… waiting for the backend to confirm");
      },
    );
  } finally {
    stopWaiting();
    term.stopSpinner();
  }
}

type RefreshReport = Awaited<ReturnType<AgentClient["refresh"]>>;

async function refreshAndReport(
  term: Terminal,
  client: AgentClient,
  provider: string,
  json: boolean,
): Promise<number> {
  try {
    const report = await refreshWithProgress(term, client, provider);
    const status = report.status?.providers.find((p) => p.provider === provider) ?? null;
    if (json) {
      term.line(
        JSON.stringify(
          { result: report.result, status, choices: report.catalog?.choices ?? null },
          null,
          2,
        ),
      );
    } else {
      const sentence = explainRefresh(report.result);
      term.line(report.result.outcome === "refreshed" ? term.green(sentence) : term.red(sentence));
      if (report.reloadError)
        term.line(`Reloading the catalog failed: ${report.reloadError.message}`);
      if (status) describe(term, status);
      const choices = report.catalog?.choices.filter((c) => c.provider === provider) ?? [];
      term.line(
        `${choices.length} selectable ${choices.length === 1 ? "model" : "models"} from ${provider}; selection unchanged.`,
      );
    }
    return report.result.outcome === "refreshed" ? 0 : 1;
  } catch (error) {
    if (!isRemote(error, "operation_cancelled")) throw error;
    return reportCancelled(term, client, provider, json);
  }
}

/** The backend confirmed the cancellation; show what is cached now. */
async function reportCancelled(
  term: Terminal,
  client: AgentClient,
  provider: string,
  json: boolean,
): Promise<number> {
  const status =
    (await client.catalogStatus()).providers.find((p) => p.provider === provider) ?? null;
  if (json) term.line(JSON.stringify({ result: null, cancelled: true, status }, null, 2));
  else {
    term.line(
      term.yellow(
        `Refresh of ${provider} cancelled (operation_cancelled); nothing claims it completed.`,
      ),
    );
    if (status) describe(term, status);
  }
  // Interrupted by the user, as exec's Ctrl-C: 130 (128 + SIGINT).
  return 130;
}

function describe(term: Terminal, status: Parameters<typeof explain>[0]): void {
  term.line(explain(status).sentence);
  const step = nextStep(status);
  if (step) term.line(`Next step: ${step}.`);
}

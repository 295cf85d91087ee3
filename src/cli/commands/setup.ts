import { homeOf, isRemote, settingsFilePath } from "../../client/index.js";
import { detectSetup, normalizeBaseUrl } from "../../offline/setup-detect.js";
import {
  adoptStagedCache,
  adoptStagedCredentials,
  createStagingHome,
  removeStagingHome,
} from "../../offline/setup-stage.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { ActionableError } from "../failure.js";
import { SetupQuit } from "../setup/ask.js";
import { type Candidate, candidatesOf, describeFindings } from "../setup/candidates.js";
import { chooseProvider, type SetupAnswers } from "../setup/choose.js";
import { refreshAndPick } from "../setup/refresh-pick.js";
import { explainedEdit, readForSetup, writeSetup } from "../setup/write.js";
import { lineReader } from "../turn/line-reader.js";

/**
 * `mc-agent setup`: from nothing to a working model in one command (docs/cli.md, "setup").
 * It finds what is there (offline/setup-detect.ts), refreshes the chosen provider's catalog
 * through a child (the deliberate refresh, with its progress and Ctrl-C), lets the user pick a
 * model, and writes config.json once, at the end, in place and atomically. Ctrl-C at any step
 * before that write leaves the file as it was.
 */
export const setupCommand: Command = {
  spec: {
    usage: "mc-agent setup [--yes] [--provider <id>] [--model <id>] [--server <url>]",
    summary:
      "Find your keys, logins and local model servers, fetch a provider's models, pick one, and write MC_HOME/config.json.",
    help: [
      "Options:",
      "  -y, --yes           Ask nothing: the default provider and model (marked in the lists)",
      "  --provider <id>     The provider to set up (openai, anthropic, codex, ollama, ...)",
      "  --model <id>        The model to pick, as <model> or <provider>/<model>",
      "  --server <url>      Probe this OpenAI-compatible server instead of the default ports",
      "                      (Ollama 11434, LM Studio 1234, llama.cpp 8080, vLLM 8000)",
      "  --base-url <url>    Point the chosen provider at this endpoint (written to its entry)",
      "  -h, --help",
      "",
      "It refreshes the chosen provider's catalog (Ctrl-C cancels), enables the model and makes",
      'it "model" in MC_HOME/config.json; the rest of the file is kept. Nothing is written before',
      "the last step: Ctrl-C at any question leaves the file as it was (exit 130).",
    ].join("\n"),
    options: {
      yes: { type: "boolean", short: "y" },
      provider: { type: "string" },
      model: { type: "string" },
      server: { type: "string" },
      "base-url": { type: "string" },
    },
  },
  async run(args, term) {
    const answers: SetupAnswers = {
      yes: args.values.yes === true,
      provider: stringOption(args.values.provider),
      model: stringOption(args.values.model),
      baseUrl: stringOption(args.values["base-url"]),
    };
    const server = stringOption(args.values.server);
    checkUrl("--server", server);
    checkUrl("--base-url", answers.baseUrl);
    const env = term.io.env;
    const path = settingsFilePath("global", env, process.cwd());
    const before = await explainedEdit(() => readForSetup(path));
    const findings = await detectSetup(env, process.cwd(), server === null ? null : [server]);
    const candidates = candidatesOf(findings, server !== null);
    describeFindings(term, findings, candidates);
    if (candidates.length === 0) throw nothingFound(server);
    const reader = lineReader(process.stdin, term.io.out);
    try {
      const chosen = await chooseProvider(term, reader, candidates, findings, answers);
      const entry = chosenEntry(chosen, answers.baseUrl);
      // Only a provider entry the file lacks (or has otherwise) needs the staging home.
      const staged = entry ? before.withProvider(chosen.id, entry) : null;
      const stage =
        staged !== null && staged !== (before.text ?? "{}\n")
          ? await createStagingHome(staged, homeOf(env))
          : null;
      try {
        const picked = await refreshAndPick(term, reader, {
          env: stage ? { ...env, MC_HOME: stage.dir } : env,
          provider: chosen.id,
          current: findings.model,
          answers,
        });
        if (typeof picked === "number") return picked;
        if (stage) await adoptStagedCache(stage.dir, homeOf(env), chosen.id);
        await writeSetup(term, path, before.text, {
          provider: entry ? { id: chosen.id, entry } : null,
          model: picked,
        });
      } finally {
        if (stage) {
          await adoptStagedCredentials(stage, homeOf(env));
          await removeStagingHome(stage.dir);
        }
      }
      term.line("");
      term.line(
        `Next: ${term.bold("mc-agent chat")} (or mc-agent exec "<prompt>") in your project folder.`,
      );
      return 0;
    } catch (error) {
      if (error instanceof SetupQuit || isRemote(error, "operation_cancelled")) {
        term.note(`mc-agent: setup stopped; ${path} is unchanged.`);
        return 130;
      }
      throw error;
    } finally {
      reader.close();
    }
  },
};

/** The settings' URL bound (store/settings.ts), a few characters spared for the "/v1" added. */
const URL_CHARS = 2040;

function checkUrl(flag: string, url: string | null): void {
  if (url === null) return;
  if (!/^https?:\/\/\S+$/.test(url) || url.length > URL_CHARS)
    throw new UsageError(
      `${flag} takes an http:// or https:// URL of at most ${URL_CHARS} characters`,
    );
}

function stringOption(value: string | boolean | undefined): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** What the file needs for the chosen provider: a found server's entry, or a new base URL. */
function chosenEntry(chosen: Candidate, baseUrl: string | null): Candidate["entry"] {
  if (baseUrl === null) return chosen.entry;
  const url = chosen.entry ? normalizeBaseUrl(baseUrl) : baseUrl.replace(/\/+$/, "");
  return chosen.entry ? { ...chosen.entry, base_url: url } : { base_url: url };
}

function nothingFound(server: string | null): ActionableError {
  return new ActionableError(
    "nothing_found",
    server === null
      ? "no key variable, login or local model server was found"
      : "the server named with --server does not answer GET /v1/models, and no key variable or login was found",
    'Export a provider\'s key (OPENAI_API_KEY or ANTHROPIC_API_KEY), log in to Codex or Claude Code, or start a local server (ollama serve), then run "mc-agent setup" again.',
  );
}

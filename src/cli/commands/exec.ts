import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { TurnEventParams } from "../../client/index.js";
import { ATTACHMENT_LIMITS } from "../../protocol/schemas/attachments.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { ActionableError, failureOf } from "../failure.js";
import type { Terminal } from "../terminal.js";
import { HumanView } from "../turn/human-view.js";
import { JsonView } from "../turn/json-view.js";
import { lineReader } from "../turn/line-reader.js";
import { markdownRenderer } from "../turn/markdown.js";
import { promptInput } from "../turn/prompt-input.js";
import { exitCodeOf, runTurn } from "../turn/run-turn.js";
import {
  openTurnSession,
  permissionsOf,
  TURN_OPTIONS,
  TURN_OPTIONS_HELP,
} from "../turn/turn-session.js";
import type { TurnView } from "../turn/view.js";

export const execCommand: Command = {
  spec: {
    usage: "mc-agent exec [options] [<prompt...> | -]",
    summary: "Run one turn of the agent in the current folder and print its reply.",
    help: [
      "Options:",
      ...TURN_OPTIONS_HELP,
      "  --json                 Print one JSON object a line: the turn's events, then its result",
      "                         (or an error); the shape is in docs/cli.md",
      "  -o, --output <file>    Also write the turn's final message to <file>",
      "  --image <file>         Send an image (PNG, JPEG, GIF or WebP, at most 5 MiB) with the",
      "                         prompt; repeat for more (at most 8)",
      "  --fail-on-denial       Exit 1 (not 3) when an approval was denied for want of a terminal",
      "  -h, --help",
      "",
      "The reply streams to stdout (rendered markdown on a terminal, the text as it came",
      "otherwise); tool calls, shell output and the summary go to stderr.",
      "Edits and commands need your approval under --permissions ask: a y/n/a question on the",
      "terminal (allow once / deny / allow for the session). Without a terminal to ask on they",
      "are denied and exec exits 3; choose --permissions accept_edits, sandboxed (commands in an",
      "OS sandbox) or full_access to allow them unasked.",
      "Ctrl-C interrupts the turn and waits for it to end; a second Ctrl-C exits at once.",
      "A piped stdin is the prompt when none is given (git diff | mc-agent exec), and is added",
      'to a given one as context (cat build.log | mc-agent exec "why does this fail?");',
      '"-" reads the prompt from stdin, even a terminal; < /dev/null passes no input. A prompt',
      'that starts with "-" goes after "--" (mc-agent exec -- "-v: what does it do?").',
      "Exit codes: 0 completed, 1 failed or refused, 2 usage, 3 completed with an approval",
      "denied for want of a terminal (1 with --fail-on-denial), 130 interrupted.",
    ].join("\n"),
    options: {
      ...TURN_OPTIONS,
      json: { type: "boolean" },
      output: { type: "string", short: "o" },
      image: { type: "string", multiple: true },
      "fail-on-denial": { type: "boolean" },
    },
    rest: "prompt",
    restOptional: true,
  },
  async run(args, term) {
    const json = args.values.json === true;
    const jsonView = json ? new JsonView(term) : null;
    try {
      return await execTurn(args.values, args.positionals, term, jsonView);
    } catch (error) {
      // With --json the failure is a line of its own too; the one-line report follows on stderr.
      jsonView?.error(failureOf(error, "exec"));
      throw error;
    }
  },
};

async function execTurn(
  values: Record<string, string | boolean | undefined>,
  words: string[],
  term: Terminal,
  jsonView: JsonView | null,
): Promise<number> {
  const permissions = permissionsOf(values.permissions);
  const output = outputPath(values.output);
  const input = await promptInput(words, process.stdin);
  const attachments = imagesOf((values as Record<string, unknown>).image);
  const { client, sessionId } = await openTurnSession(term, {
    ...(attachments.length > 0 ? { capabilities: ["attachments"] as const } : {}),
    ...stringOption("session", values.session),
    ...stringOption("model", values.model),
    ...stringOption("effort", values.effort),
    // The workspace's and the user's skills (docs/skills.md), where the backend has them.
    optional: ["skills"],
  });
  const view: TurnView =
    jsonView ?? new HumanView(term, { header: true, markdown: await markdownRenderer(term) });
  const final = finalMessage(view);
  // Approvals are asked only where a person can answer: stdin a terminal.
  const reader = process.stdin.isTTY ? lineReader(process.stdin, term.io.err) : null;
  let deniedUnasked = 0;
  try {
    const result = await runTurn(client, input, {
      term,
      view: final.view,
      reader,
      permissions,
      attachments,
      onUnasked: () => {
        deniedUnasked += 1;
      },
    });
    const code = exitCodeOf(result, deniedUnasked, values["fail-on-denial"] === true);
    writeFinal(output, final.text());
    view.result(result, { code, deniedUnasked });
    if (!jsonView) continueHint(term, sessionId);
    return code;
  } finally {
    reader?.close();
    await client.close();
  }
}

/** `--image <file>`, each resolved now; the child checks and reads them (docs/cli.md). */
function imagesOf(raw: unknown): { type: "image"; path: string }[] {
  const paths = Array.isArray(raw) ? raw.filter((p): p is string => typeof p === "string") : [];
  if (paths.some((path) => path === "")) throw new UsageError("--image needs a file name");
  if (paths.length > ATTACHMENT_LIMITS.images)
    throw new UsageError(`at most ${ATTACHMENT_LIMITS.images} --image files`);
  return paths.map((path) => ({ type: "image", path: resolve(path) }));
}

/** `-o <file>`: resolved now, so a later cd cannot move it; a usage error when empty. */
function outputPath(raw: string | boolean | undefined): string | null {
  if (raw === undefined || typeof raw === "boolean") return null;
  if (raw === "") throw new UsageError("-o needs a file name");
  return resolve(raw);
}

/** Writes the final message to `-o`'s file, if the turn had one. */
function writeFinal(path: string | null, text: string | null): void {
  if (path === null || text === null) return;
  try {
    writeFileSync(path, text.endsWith("\n") ? text : `${text}\n`);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new ActionableError(
      "output_failed",
      `could not write the final message to ${path} (${reason})`,
      "Check that its folder exists and that you may write there; the turn itself is saved.",
    );
  }
}

/** Wraps `view` to keep the turn's last complete message (what `-o` writes). */
function finalMessage(view: TurnView): { view: TurnView; text: () => string | null } {
  let last: string | null = null;
  const wrapped: TurnView = {
    showsTools: view.showsTools,
    event(params: TurnEventParams) {
      if (params.event.type === "message_done") last = params.event.text;
      view.event(params);
    },
    pause: () => view.pause(),
    result: (result, exit) => view.result(result, exit),
  };
  return { view: wrapped, text: () => last };
}

function stringOption<K extends string>(key: K, value: string | boolean | undefined) {
  return typeof value === "string" ? ({ [key]: value } as Record<K, string>) : {};
}

function continueHint(term: Terminal, sessionId: string): void {
  term.note(
    term.paintNote(`Continue this session with --session ${sessionId} (exec or chat).`, "2"),
  );
}

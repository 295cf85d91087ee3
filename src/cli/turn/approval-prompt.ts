import type { ApprovalRequest, Decision } from "../../client/index.js";
import { showHidden } from "../../protocol/visible-text.js";
import type { Terminal } from "../terminal.js";
import { diffLines } from "./diff-lines.js";
import type { LineReader } from "./reader-types.js";
import type { TurnView } from "./view.js";

/** One key each, no Enter. */
const ANSWERS: Record<string, Decision> = {
  y: "allow_once",
  n: "deny",
  a: "allow_session",
};
/** Offered only with a rule to keep (a simple command, or an edit): kept under MC_HOME/rules. */
const LASTING: Record<string, Decision> = { w: "allow_always", x: "deny_always" };

const SAID: Record<Decision, string> = {
  allow_once: "allowed once",
  allow_session: "allowed for the rest of this session",
  deny: "denied",
  allow_always: "allowed in this workspace until the rule is removed (mc-agent rules)",
  deny_always: "denied in this workspace until the rule is removed (mc-agent rules)",
};

/**
 * Answers approvals on the terminal: what the model wants to do (command or diff), then a
 * y/n/a question answered by one key (no Enter; other keys are ignored). Off a terminal nobody
 * can answer, so each approval is denied, saying so and which --permissions would allow it (and
 * `onUnasked` counts it: exec's exit code says so). Ctrl-C at the question denies and interrupts
 * the turn.
 */
export function approvalPrompt(
  term: Terminal,
  view: TurnView,
  reader: LineReader | null,
  interrupt: () => void,
  onUnasked?: () => void,
): (request: ApprovalRequest) => Promise<Decision> {
  return async (request) => {
    view.pause();
    describe(term, request, !view.showsTools);
    if (!reader?.interactive) {
      // A command asked to run outside the sandbox needs full_access; any other also runs
      // unasked inside it.
      const outside = request.title.startsWith("Run outside the sandbox");
      const needed =
        request.kind === "edit"
          ? "accept_edits"
          : outside
            ? "full_access"
            : "full_access (or sandboxed)";
      note(
        term,
        `  denied: no terminal to ask on (rerun with --permissions ${needed} to allow this without asking)`,
        "33",
      );
      onUnasked?.();
      return "deny";
    }
    const decision = await ask(term, reader, request.rule != null);
    if (decision === "interrupted") {
      // The interrupt cancels the approval; "deny" only covers an answer racing it.
      interrupt();
      return "deny";
    }
    note(term, `  ${SAID[decision]}`, "2");
    return decision;
  };
}

async function ask(
  term: Terminal,
  reader: LineReader,
  lasting: boolean,
): Promise<Decision | "interrupted"> {
  const answers = lasting ? { ...ANSWERS, ...LASTING } : ANSWERS;
  const question = term.paintNote(
    lasting
      ? "Allow? [y] once · [a] for this session · [w] always in this folder · [n] deny · [x] never: "
      : "Allow? [y] once · [a] for this session · [n] deny: ",
    "1",
  );
  const answer = await reader.key(question, Object.keys(answers));
  if (answer.kind === "interrupt") return "interrupted";
  if (answer.kind === "end") return "deny";
  return answers[answer.key] ?? "deny";
}

function describe(term: Terminal, request: ApprovalRequest, titled: boolean): void {
  // Escaped here too, whatever backend sent it: no reordered or hidden text on the terminal.
  if (titled) note(term, `? ${showHidden(request.title)}`, "33");
  if (request.command !== null) note(term, `  $ ${showHidden(request.command)}`, "1");
  if (request.diff !== null)
    for (const line of diffLines(request.diff)) note(term, line.text, line.color);
  if (request.truncated) note(term, "  (shortened: the whole change is larger)", "2");
  if (request.rule?.tool === "shell") {
    const what = request.rule.match === "prefix" ? "commands" : "exactly, again";
    note(term, `  [a] allows \`${showHidden(request.rule.text)}\` ${what} for this session`, "2");
  } else if (request.rule?.tool === "mcp") {
    note(term, `  [a] allows ${showHidden(request.rule.text)} for this session`, "2");
  } else if (request.kind === "command") {
    note(term, "  (not a simple command: [a] allows it this once)", "2");
  }
}

function note(term: Terminal, text: string, color: string): void {
  term.io.err.write(`${term.paintNote(text, color)}\n`);
}

import { setTrust, trustFinding } from "../../offline/workspace-trust.js";
import type { Terminal } from "../terminal.js";
import { waitingText } from "../trust-words.js";
import type { LineReader } from "../turn/reader-types.js";

/**
 * Before `chat` starts its backend (docs/trust.md, "chat"): in a folder whose project file names
 * hooks or MCP servers not trusted here, a terminal asks once, y/n; a "y" trusts what it showed,
 * so the backend about to start runs them. A piped chat never asks: it says what to run. A "n"
 * is not remembered: the next chat here asks again. Ctrl-C at the question trusts nothing and
 * ends the chat before its backend starts ("interrupted"): the user stopped, not answered.
 */
export async function askTrust(
  term: Terminal,
  reader: LineReader,
): Promise<"go_on" | "interrupted"> {
  const finding = trustFinding(term.io.env, process.cwd());
  if (finding.global || finding.invalid || finding.trust === "trusted") return "go_on";
  const what = waitingText(finding.waiting);
  const changed = finding.trust === "changed" ? ", changed since you trusted this folder" : "";
  const named = `This folder's .mc/config.json names ${what}${changed}`;
  if (!reader.interactive) {
    term.note(`${named}; they run only in a trusted folder: "mc-agent trust" trusts it.`);
    return "go_on";
  }
  term.note(`${named}. They run only if you trust this folder.`);
  const answer = await reader.key("Trust this folder? [y/N] ", ["y", "n"]);
  if (answer.kind === "interrupt") {
    term.note(`Not trusted; the chat did not start.`);
    return "interrupted";
  }
  if (answer.kind === "key" && answer.key === "y") {
    await setTrust(term.io.env, finding, true);
    term.note(term.paintNote(`Trusted: its ${what} run.`, "32"));
  } else {
    term.note(`Not trusted: they stay off ("mc-agent trust" trusts this folder later).`);
  }
  return "go_on";
}

import {
  setTrust,
  type TrustFinding,
  trustFinding,
  waitingText,
} from "../../offline/workspace-trust.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import type { Terminal } from "../terminal.js";

/** `mc-agent trust [--revoke]`: the current folder's trust of its project code (docs/trust.md). */
export const trustCommand: Command = {
  spec: {
    usage: "mc-agent trust [--revoke]",
    summary: "Trust the current folder's .mc/config.json to run its hooks and MCP servers.",
    help: [
      "Options:",
      "  --revoke  Forget this folder's trust: its hooks and MCP servers stop running",
      "  -h, --help",
      "",
      "A project's .mc/config.json may name hooks and MCP servers; none of them runs until you",
      "trust the folder. The trust is for what the file names now: a new hook or server asks",
      "again. It applies to the chats and backends started after it (a running one keeps what",
      "it started with). Kept in MC_HOME/trust/, never in the folder (docs/trust.md).",
    ].join("\n"),
    options: { revoke: { type: "boolean" } },
  },
  async run(args, term) {
    if (args.positionals.length > 0) throw new UsageError("too many arguments");
    const finding = trustFinding(term.io.env, process.cwd());
    const revoke = args.values.revoke === true;
    if (finding.global) {
      term.line(
        "This folder's .mc/config.json is MC_HOME/config.json, the global file: it needs no trust.",
      );
      return 0;
    }
    if (!revoke && finding.invalid) {
      term.line(
        term.red("This folder's .mc/config.json is invalid, so none of it applies;") +
          " fix it first (mc-agent doctor says where).",
      );
      return 1;
    }
    const trust = await setTrust(term.io.env, finding, !revoke);
    term.line(revoke ? revoked(finding, trust) : trusted(term, finding));
    return 0;
  },
};

function trusted(term: Terminal, finding: TrustFinding): string {
  const what = waitingText(finding.waiting);
  if (what.startsWith("no "))
    return `Trusted ${finding.workspace}: its .mc/config.json names ${what} now; if one is added, you are asked again.`;
  return `${term.green("Trusted")} ${finding.workspace}: ${what} run from the next chat or backend started here.`;
}

function revoked(finding: TrustFinding, trust: string): string {
  const still =
    trust === "trusted"
      ? ""
      : ` Its ${waitingText(finding.waiting)} no longer run in new chats and backends.`;
  return `Revoked the trust of ${finding.workspace}.${still}`;
}

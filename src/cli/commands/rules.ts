import type { ApprovalRulesResult, KeptRule } from "../../protocol/schemas/rules.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import { connect } from "../connect.js";
import { plainLength, type Terminal, table } from "../terminal.js";
import { shortTime } from "./format.js";

/** `mc-agent rules`: the approval rules of this folder, through the child's approval.rules. */
export const rulesCommand: Command = {
  spec: {
    usage: "mc-agent rules [remove <id> | clear] [--json]",
    summary: "List the approval rules of the current folder, or remove them (approval.rules).",
    help: [
      "  mc-agent rules              List the rules kept for this folder (allow_always, deny_always)",
      "  mc-agent rules remove <id>  Remove one rule by its ID (as listed)",
      "  mc-agent rules clear        Remove every rule of this folder, and a damaged rules file",
      "",
      "Options:",
      "  --json    Print the result as JSON (for scripts)",
      "  -h, --help",
      "",
      "Rules live in MC_HOME/rules/, never in the folder itself; docs/tools.md has their grammar.",
    ].join("\n"),
    options: { json: { type: "boolean" } },
    rest: "action",
    restOptional: true,
  },
  async run(args, term) {
    const [action, id, ...extra] = args.positionals;
    if (extra.length > 0) throw new UsageError("too many arguments");
    if (action === "remove" && id === undefined) throw new UsageError("missing <id>");
    if (action !== "remove" && id !== undefined) throw new UsageError("too many arguments");
    if (action !== undefined && action !== "remove" && action !== "clear" && action !== "list")
      throw new UsageError(`unknown action "${action.slice(0, 32)}" (remove or clear)`);
    const client = await connect(term, ["turn"]);
    try {
      const result =
        action === "remove"
          ? await client.removeRule(id as string)
          : action === "clear"
            ? await client.clearRules()
            : await client.rules();
      if (args.values.json) term.line(JSON.stringify(result, null, 2));
      else print(term, result, action);
      return 0;
    } finally {
      await client.close();
    }
  },
};

function print(term: Terminal, result: ApprovalRulesResult, action: string | undefined): void {
  if (action === "remove") term.line("Removed.");
  if (action === "clear") term.line("Cleared every rule of this folder.");
  if (result.file === "invalid")
    term.line(
      term.yellow(
        "This folder's rules file is damaged or unsafe and is ignored: none of its rules apply. " +
          '"mc-agent rules clear" replaces it.',
      ),
    );
  const kept = result.rules.filter((rule) => rule.scope === "workspace");
  if (kept.length === 0) {
    term.line("No approval rules are kept for this folder.");
    return;
  }
  const header = ["ID", "EFFECT", "RULE", "SINCE"].map((h) => term.bold(h));
  const rows = kept.map((rule) => [
    rule.id,
    rule.effect,
    describe(rule),
    shortTime(rule.created_at),
  ]);
  for (const line of table([header, ...rows], plainLength)) term.line(line);
}

function describe(rule: KeptRule): string {
  if (rule.tool === "edit" || rule.tool === "mcp") return rule.text;
  return rule.match === "prefix" ? `\`${rule.text}\` commands` : `exactly \`${rule.text}\``;
}

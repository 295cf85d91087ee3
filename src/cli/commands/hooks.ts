import { type HooksListing, listHooks } from "../../offline/hooks-list.js";
import { UsageError } from "../args.js";
import type { Command } from "../command.js";
import type { Terminal } from "../terminal.js";

/** `mc-agent hooks`: the hooks configured for this folder and where each comes from. */
export const hooksCommand: Command = {
  spec: {
    usage: "mc-agent hooks [--json]",
    summary: "List the hooks configured for this folder (MC_HOME/config.json, .mc/config.json).",
    help: [
      "Options:",
      "  --json    Print the listing as JSON (for scripts)",
      "  -h, --help",
      "",
      "Reads the settings files as a backend child reads them at its start; runs nothing.",
      "A project's hooks (.mc/config.json) run only once the folder is trusted. docs/hooks.md",
      "describes the format (Claude Code's) and each event.",
    ].join("\n"),
    options: { json: { type: "boolean" } },
  },
  async run(args, term) {
    if (args.positionals.length > 0) throw new UsageError("too many arguments");
    const listing = await listHooks(term.io.env, process.cwd());
    if (args.values.json) term.line(JSON.stringify(listing, null, 2));
    else for (const line of hookLines(term, listing, "")) term.line(line);
    return 0;
  },
};

/** The listing as lines (also doctor's "Hooks" section). */
export function hookLines(term: Terminal, listing: HooksListing, indent: string): string[] {
  const lines: string[] = [];
  for (const file of ["global", "project"] as const)
    if (listing.invalid[file])
      lines.push(
        `${indent}${term.yellow(`the ${file} config file is invalid: none of its hooks run`)}`,
      );
  if (listing.hooks.length === 0 && listing.claude_only_events.length === 0)
    lines.push(`${indent}${term.dim("no hooks configured")}`);
  for (const hook of listing.hooks) {
    const where = hook.source === "global" ? "MC_HOME/config.json" : ".mc/config.json";
    const state = hook.runs ? term.green("runs") : term.yellow("waits for trust in this folder");
    const matcher = hook.matcher === null ? "" : ` [${hook.matcher}]`;
    lines.push(`${indent}${term.bold(hook.event)}${matcher}  ${where}  ${state}`);
    lines.push(`${indent}  ${hook.command}  (timeout ${hook.timeout_s} s)`);
    for (const name of hook.warnings)
      lines.push(
        `${indent}  ${term.yellow(`"${name}" is a Claude Code tool mc-agent has no equal of: it matches nothing`)}`,
      );
  }
  for (const { source, event, hooks } of listing.claude_only_events) {
    const where = source === "global" ? "MC_HOME/config.json" : ".mc/config.json";
    const what = `"${event}" (${where}) is a Claude Code event mc-agent has no equal of`;
    const never = hooks === 1 ? "its hook never runs" : `its ${hooks} hooks never run`;
    lines.push(`${indent}${term.yellow(`${what}: ${never}`)}`);
  }
  return lines;
}

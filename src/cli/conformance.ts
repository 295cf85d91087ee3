import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Tier } from "../conformance/case.js";
import { allCases } from "../conformance/registry.js";
import { formatJson, formatOutcome, formatSummary } from "../conformance/report.js";
import { runSuite, selectCases } from "../conformance/runner.js";

const HELP = `Usage: mc-agent conformance [options] [-- <command ...>]

Runs the local-agent stdio v1 conformance suite against a child command (default: this
package's own "mc-agent stdio"), each case in a fresh child with a fresh temp MC_HOME.

Options:
  --json            Print one JSON report instead of the human report
  --tier <tier>     Only MUST, SHOULD or INFO cases (repeatable)
  --filter <text>   Only cases whose ID or title contains <text>
  --test-methods    The command offers the test-only methods (MC_AGENT_TEST_METHODS=1);
                    on by default for this package's own child, off for other commands
  --list            List the selected cases without running them

Exit status: 0 when every MUST case holds, 1 when one fails, 2 on a usage error.
`;

const TIERS: readonly Tier[] = ["MUST", "SHOULD", "INFO"];

interface Args {
  json: boolean;
  list: boolean;
  tiers: Tier[];
  filter?: string;
  testMethods?: boolean;
  command?: string[];
}

/** `mc-agent conformance`: returns the exit status. */
export async function conformanceCommand(argv: string[]): Promise<number> {
  const ours = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (ours.includes("--help") || ours.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    process.stderr.write(`mc-agent conformance: ${(error as Error).message} (usage_error)\n`);
    return 2;
  }
  if (args.list) {
    for (const c of selectCases(allCases(), args)) {
      process.stdout.write(`${c.tier.padEnd(6)} ${c.id} — ${c.title} [${c.clause}]\n`);
    }
    return 0;
  }
  const report = await runSuite({
    tiers: args.tiers,
    ...(args.filter !== undefined ? { filter: args.filter } : {}),
    ...(args.command ? { command: args.command } : {}),
    ...(args.testMethods !== undefined ? { testMethods: args.testMethods } : {}),
    onOutcome: args.json ? undefined : (o) => process.stdout.write(`${formatOutcome(o)}\n`),
  });
  process.stdout.write(args.json ? formatJson(report) : `${formatSummary(report.summary)}\n`);
  return report.summary.ok ? 0 : 1;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { json: false, list: false, tiers: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "--") {
      args.command = argv.slice(i + 1).map(absoluteIfFile);
      if (args.command.length === 0) throw new Error("no command after --");
      break;
    }
    if (arg === "--json") args.json = true;
    else if (arg === "--list") args.list = true;
    else if (arg === "--test-methods") args.testMethods = true;
    else if (arg === "--tier") args.tiers.push(tier(argv[++i]));
    else if (arg === "--filter") args.filter = value(arg, argv[++i]);
    else throw new Error(`unknown option ${arg}`);
  }
  return args;
}

/**
 * The child runs in a temp workspace, so an argument naming an existing file relative to where
 * the kit was started (a script, a binary) is made absolute first.
 */
function absoluteIfFile(arg: string): string {
  const candidate = resolve(arg);
  return !isAbsolute(arg) && existsSync(candidate) ? candidate : arg;
}

function tier(text: string | undefined): Tier {
  const upper = value("--tier", text).toUpperCase() as Tier;
  if (!TIERS.includes(upper)) throw new Error(`--tier takes MUST, SHOULD or INFO`);
  return upper;
}

function value(option: string, text: string | undefined): string {
  if (text === undefined || text.startsWith("--")) throw new Error(`${option} needs a value`);
  return text;
}

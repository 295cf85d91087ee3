/**
 * Whether a deny rule refuses a call (docs/tools.md, "What a deny rule sees"). An edit or MCP
 * deny rule matches as an allow rule does. A `shell` deny rule is checked against every command
 * the text may run (command-scan.ts), each compared by its program's last path segment
 * (`/bin/rm` is `rm`), with the rule's assignments among the command's, and, for a prefix rule,
 * its further words found in order with only options and their values between them (`git -C x
 * push` is `git push`). When the scan cannot tell which program runs and some `shell` deny rule
 * exists, the answer is `unsure`: the call asks, at every level.
 */
import type { KeptRule } from "../../protocol/schemas/rules.js";
import { scanCommands } from "./command-scan.js";
import { programName } from "./rule-arguments.js";
import { type RuleSubject, ruleMatches } from "./rule-match.js";
import type { ScannedCommand } from "./scanned-command.js";

type ShellRule = Extract<KeptRule, { tool: "shell" }>;

/** The first deny rule refusing `subject`, `unsure`, or null. */
export function denyVerdict(
  rules: readonly KeptRule[],
  subject: RuleSubject,
): KeptRule | "unsure" | null {
  const denies = rules.filter((rule) => rule.effect === "deny");
  const other = denies.find((rule) => rule.tool !== "shell" && ruleMatches(rule, subject));
  if (other) return other;
  const shellRules = denies.filter((rule): rule is ShellRule => rule.tool === "shell");
  if (shellRules.length === 0 || subject.tool !== "shell" || subject.text === null) return null;
  const scan = scanCommands(subject.text);
  for (const rule of shellRules)
    if (scan.commands.some((command) => shellDenies(rule, command))) return rule;
  return scan.unsure ? "unsure" : null;
}

function shellDenies(rule: ShellRule, command: ScannedCommand): boolean {
  const [program, ...rest] = rule.words;
  if (programName(program as string) !== programName(command.words[0] as string)) return false;
  if (!rule.env.every((assignment) => command.env.includes(assignment))) return false;
  const args = command.words.slice(1);
  if (rule.match === "exact")
    return rest.length === args.length && rest.every((word, i) => args[i] === word);
  let next = 0;
  for (let i = 0; i < args.length && next < rest.length; i += 1) {
    const word = args[i] as string;
    if (word === rest[next]) next += 1;
    else if (!isOption(word) && !(i > 0 && isOption(args[i - 1] as string))) return false;
  }
  return next === rest.length;
}

function isOption(word: string): boolean {
  return word.startsWith("-") && word !== "-";
}

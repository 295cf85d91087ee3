/**
 * What a prefix rule covers past its own words (docs/tools.md, "Options a rule covers"): the
 * command's further words are walked with the option table (option-table.ts). Past the rule's
 * words, an option must be one the table lists for the command at that point, and an operand
 * must not pick a subcommand or a script (the rule would then cover commands the user never
 * saw). A program not in the table covers no option, and its leading subcommand-like words must
 * all be in the rule.
 */
import { type CommandSpec, OPTION_TABLE } from "./option-table.js";

/**
 * A subcommand word: 1 to 64 letters, digits and `_ : @ + -`, not starting with `-`. Anything
 * else ends the prefix a rule offers: an option (`-x`, `--x`, `--`), a path argument (a `/`, a
 * `.`, a leading `~`, or a glob), an assignment-like `key=value`, or any other character.
 */
export const SUBCOMMAND_WORD = /^[A-Za-z0-9_][A-Za-z0-9_:@+-]{0,63}$/;

/** A program not in the table: no option covered; its leading subcommand words are selectors. */
const UNKNOWN: CommandSpec = { options: new Set() };

export function programName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** The spec of a program, by its last path segment, or null when the table has none. */
export function specOf(program: string): CommandSpec | null {
  const name = programName(program);
  const table = OPTION_TABLE();
  return Object.hasOwn(table, name) ? (table[name] as CommandSpec) : null;
}

/** Whether the words of `words` from `ruleLength` on are covered by a prefix rule of the rest. */
export function argumentsCovered(words: readonly string[], ruleLength: number): boolean {
  const known = specOf(words[0] as string);
  let spec = known ?? UNKNOWN;
  // Selecting: the next operand picks a subcommand (or a script), so it must be the rule's.
  let selecting = picks(spec);
  // A program not in the table: its leading subcommand-like words are what the rule names.
  let leading = known === null;
  let ended = false;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] as string;
    const beyond = i >= ruleLength;
    if (!ended && isOption(word)) {
      leading = false;
      if (word === "--") {
        if (beyond && !spec.dashDash) return false;
        ended = true;
      } else if (beyond && !optionCovered(spec, word)) {
        return false;
      }
      continue;
    }
    if (leading && SUBCOMMAND_WORD.test(word)) {
      if (beyond) return false;
      continue;
    }
    leading = false;
    if (selecting) {
      if (beyond) return false;
      spec = spec.subcommands?.[word] ?? spec.selector ?? UNKNOWN;
      selecting = picks(spec);
      leading = spec === UNKNOWN;
      continue;
    }
    if (beyond && spec.operands === false) return false;
  }
  return true;
}

function picks(spec: CommandSpec): boolean {
  return spec.subcommands !== undefined || spec.selector !== undefined;
}

function isOption(word: string): boolean {
  return word.startsWith("-") && word !== "-";
}

function optionCovered(spec: CommandSpec, word: string): boolean {
  const { options } = spec;
  if (word.startsWith("--") || spec.singleDash) {
    const name = word.split("=")[0] as string;
    return options.has(spec.singleDash ? name.replace(/^--/, "-") : name);
  }
  if (spec.numeric && /^-[0-9]+$/.test(word)) return true;
  // A cluster of short options (`-la`): each one covered; a value letter takes the rest.
  for (const letter of word.slice(1)) {
    if (!options.has(`-${letter}`)) return false;
    if (spec.valueLetters?.includes(letter)) return true;
  }
  return true;
}

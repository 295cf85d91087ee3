import { parseArgs } from "node:util";

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface CommandSpec {
  usage: string;
  summary: string;
  /** Extra help text after the usage line. */
  help: string;
  /** `multiple`: the option may repeat; its value is then a list (`exec --image`). */
  options?: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }>;
  /** Names of the required positional arguments, in order. */
  positionals?: string[];
  /** After them, one or more words of this name (`<prompt...>`); none allowed when absent. */
  rest?: string;
  /** The `rest` words may be left out (exec's prompt can come from stdin). */
  restOptional?: boolean;
  /** Or after them, at most one word of this name (`[<id>]`). */
  optional?: string;
}

export interface Parsed {
  help: boolean;
  /** A `multiple` option's value is a list at run time: read it as `unknown` (exec.ts). */
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Strict parsing: unknown options or wrong positional counts are usage errors. */
export function parseCommand(spec: CommandSpec, argv: string[]): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: "boolean", short: "h" }, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(firstSentence(error));
  }
  const help = parsed.values.help === true;
  const wanted =
    spec.rest && !spec.restOptional
      ? [...(spec.positionals ?? []), spec.rest]
      : (spec.positionals ?? []);
  const count = parsed.positionals.length;
  const most = wanted.length + (spec.optional ? 1 : 0);
  if (!help && (count < wanted.length || (count > most && !spec.rest))) {
    const missing = wanted[count];
    throw new UsageError(missing ? `missing <${missing}>` : "too many arguments");
  }
  return { help, values: parsed.values as Parsed["values"], positionals: parsed.positionals };
}

export function helpText(spec: CommandSpec): string {
  return `Usage: ${spec.usage}\n\n${spec.summary}\n\n${spec.help}\n`;
}

function firstSentence(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split("\n")[0] ?? text).replace(/\. To specify.*$/, "");
}

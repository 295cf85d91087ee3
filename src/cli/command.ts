import type { CommandSpec, Parsed } from "./args.js";
import type { Terminal } from "./terminal.js";

/** One CLI command: its help and its work; run returns the exit code. */
export interface Command {
  spec: CommandSpec;
  run(args: Parsed, term: Terminal): Promise<number>;
  /** Words after the command that name a command of their own (`models enable`). */
  subcommands?: Record<string, Command>;
}

import { adviceFor, ClientError, RemoteError } from "../client/index.js";
import { UsageError } from "./args.js";
import type { Terminal } from "./terminal.js";

/**
 * Every failure ends as one line on stderr: what happened, its code, and what to do.
 * Returns the exit code: 2 for usage, 1 for an operation that failed.
 */
export function reportFailure(error: unknown, term: Terminal, command?: string): number {
  term.stopSpinner();
  if (error instanceof UsageError) {
    const help = command ? `mc-agent ${command} --help` : "mc-agent --help";
    term.note(`mc-agent: ${error.message} (usage_error). Run "${help}".`);
    return 2;
  }
  if (error instanceof ActionableError) {
    term.note(`mc-agent: ${error.message} (${error.code}). ${error.advice}`);
    return 1;
  }
  if (error instanceof RemoteError || error instanceof ClientError) {
    term.note(`mc-agent: ${withoutStop(error.message)} (${error.code}). ${adviceFor(error.code)}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  term.note(`mc-agent: unexpected failure: ${firstLine(message)} (internal_error). Report it.`);
  return 1;
}

function withoutStop(text: string): string {
  return firstLine(text).replace(/\.$/, "");
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

/** A failure the CLI itself diagnosed, with its code and what to do. */
export class ActionableError extends Error {
  override readonly name = "ActionableError";
  constructor(
    readonly code: string,
    message: string,
    readonly advice: string,
  ) {
    super(message);
  }
}

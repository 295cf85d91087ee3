import { adviceFor, ClientError, RemoteError } from "../client/index.js";
import { UsageError } from "./args.js";
import type { Terminal } from "./terminal.js";

/** A failure as the CLI reports it: its code, what happened, what to do, and the exit code. */
export interface Failure {
  code: string;
  message: string;
  advice: string;
  exit: number;
}

/** What any error a command threw means for its user: 2 for usage, 1 for a failed operation. */
export function failureOf(error: unknown, command?: string): Failure {
  if (error instanceof UsageError) {
    const help = command ? `mc-agent ${command} --help` : "mc-agent --help";
    return { code: "usage_error", message: error.message, advice: `Run "${help}".`, exit: 2 };
  }
  if (error instanceof ActionableError)
    return { code: error.code, message: error.message, advice: error.advice, exit: 1 };
  if (error instanceof RemoteError || error instanceof ClientError)
    return {
      code: error.code,
      message: withoutStop(error.message),
      advice: adviceFor(error.code, error instanceof RemoteError ? error.next : null),
      exit: 1,
    };
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: "internal_error",
    message: `unexpected failure: ${firstLine(message)}`,
    advice: "Report it.",
    exit: 1,
  };
}

/**
 * Every failure ends as one line on stderr: what happened, its code, and what to do.
 * Returns the exit code.
 */
export function reportFailure(error: unknown, term: Terminal, command?: string): number {
  term.stopSpinner();
  const failure = failureOf(error, command);
  term.note(`mc-agent: ${failure.message} (${failure.code}). ${failure.advice}`);
  return failure.exit;
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

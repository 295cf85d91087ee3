import { adviceForTurn, type TurnResult } from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import { configuredAddress } from "./provider-address.js";

type Failed = Extract<TurnResult, { status: "failed" }>;

/**
 * The lines for a failed turn: what happened with its code and what to do; then the provider's
 * own words when it sent some (already bounded and redacted by the backend); and when the
 * provider could not be reached at all, which provider and the address the user configured for
 * it (read here from the user's own settings: the backend never names a URL).
 */
export function failureLines(term: Terminal, result: Failed, model: string | null): string[] {
  const { code, message, provider_message: said } = result.error;
  const lines = [`mc-agent: ${message.replace(/\.$/, "")} (${code}). ${adviceForTurn(code)}`];
  if (said) lines.push(`  the provider said: ${said}`);
  const provider = model?.split("/")[0];
  if (provider && unreachable(code, message)) {
    const url = configuredAddress(term.io.env, provider);
    lines.push(
      url
        ? `  could not reach provider "${provider}" at ${url} (from MC_HOME/config.json); is the server running there?`
        : `  could not reach provider "${provider}" at its built-in address; check the network.`,
    );
  }
  return lines;
}

/** No answer at all: a connection that failed or timed out, not an HTTP error status. */
function unreachable(code: string, message: string): boolean {
  return (
    (code === "remote_unavailable" || code === "remote_timeout") && !/HTTP \d{3}/.test(message)
  );
}

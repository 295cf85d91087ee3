/**
 * How provider credentials reach the backend child without ever being in its start-up
 * environment (which any same-user process can read, e.g. in /proc/<pid>/environ): the launcher
 * (bin/mc-agent.js run by /bin/sh, or the SDK's own spawn) removes them from the environment,
 * sets MC_AGENT_SECRETS_FD=3 and writes them to the child's fd 3, which the child reads whole and
 * closes before anything else runs. The text is one `NAME=value` line per variable, with `\` and
 * newline in values written as `\\` and `\n`. No I/O here: the format only.
 */

/** The variable that says fd 3 carries handed-over credentials (its only accepted value: "3"). */
export const SECRETS_FD_VARIABLE = "MC_AGENT_SECRETS_FD";

/**
 * The standard credential variables of model providers and their SDKs and CLIs: moved by the
 * launcher and removed from every command's environment, whether or not a provider of ours uses
 * them (a key set for another tool is still the user's key). bin/mc-agent.js repeats this list in
 * sh; a test keeps the two equal.
 */
export const PROVIDER_CREDENTIAL_VARIABLES = [
  "OPENAI_API_KEY",
  "OPENAI_ADMIN_KEY",
  "AZURE_OPENAI_API_KEY",
  "CODEX_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "XAI_API_KEY",
  "OPENROUTER_API_KEY",
  "TOGETHER_API_KEY",
  "FIREWORKS_API_KEY",
  "PERPLEXITY_API_KEY",
  "CEREBRAS_API_KEY",
  "COHERE_API_KEY",
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
] as const;

/** A variable name as settings accept it for `api_key_env`. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function encodeSecrets(secrets: Record<string, string>): string {
  return Object.entries(secrets)
    .map(([name, value]) => `${name}=${value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}\n`)
    .join("");
}

/**
 * `base` (the process's environment) with the handed-over variables over it, a copy: the
 * environment the child works with, derived the same way wherever it is (the child, and its
 * starter before it has loaded).
 */
export function withHandedOver(
  base: NodeJS.ProcessEnv,
  handedOver: string | null,
): NodeJS.ProcessEnv {
  return { ...base, ...(handedOver ? decodeSecrets(handedOver) : {}) };
}

/** The handed-over variables; lines that are not `NAME=value` with a valid name are skipped. */
export function decodeSecrets(text: string): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    const name = line.slice(0, at);
    if (at <= 0 || !VARIABLE_NAME.test(name)) continue;
    secrets[name] = line.slice(at + 1).replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return secrets;
}

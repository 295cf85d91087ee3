/**
 * The environment `shell` commands get: the child's own minus every provider credential, so a
 * command (or a model that writes one) cannot read or send the user's keys.
 */

/**
 * The standard credential variables of model providers and their SDKs and CLIs, removed whether
 * or not a provider of ours uses them (a key set for another tool is still the user's key).
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

/** `env` without `credentialVariables` (every configured `api_key_env`) and the standard ones. */
export function shellEnvironment(
  env: NodeJS.ProcessEnv,
  credentialVariables: string[],
): NodeJS.ProcessEnv {
  const removed = new Set<string>([...PROVIDER_CREDENTIAL_VARIABLES, ...credentialVariables]);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !removed.has(name)));
}

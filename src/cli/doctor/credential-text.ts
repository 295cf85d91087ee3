import type { CredentialSource } from "../../offline/inspect.js";

/**
 * The doctor's "credentials:" line: where a provider's credential comes from, in words, by name
 * only (the variable or the file, never its value). The finding itself is src/offline/'s.
 */
export function credentialText(providerType: string, source: CredentialSource): string {
  switch (source.from) {
    case "none":
      if (providerType === "codex") return "none found (MC_HOME/auth.json or Codex's auth.json)";
      return `none found (${source.variable ? `$${source.variable} is unset, ` : ""}no MC_HOME/auth.json entry)`;
    case "keyless":
      return "none needed (keyless: no key configured)";
    case "variable":
      return `API key from $${source.variable}`;
    case "mc_auth":
      if (source.kind === "api_key") return "API key from MC_HOME/auth.json";
      return source.kind === "codex_tokens"
        ? "OAuth tokens from MC_HOME/auth.json"
        : "OAuth token from MC_HOME/auth.json";
    case "codex_auth":
      return `OAuth tokens from Codex's auth.json (${source.path})`;
    case "claude_credentials":
      return `OAuth token from Claude's credentials (${source.path})`;
  }
}

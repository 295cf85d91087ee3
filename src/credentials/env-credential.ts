/**
 * The first place discoverCredential looks: the provider's `api_key_env` variable, set and not
 * empty, for any type but codex (whose credential is an OAuth login). Apart from the credential
 * files' schemas, so that the ACP starter can look before zod loads (src/acp/credentials-glance.ts).
 */
export function envCredential(
  provider: { type: string; api_key_env: string | null },
  env: NodeJS.ProcessEnv,
): { kind: "api_key"; key: string } | null {
  const envKey = provider.api_key_env ? env[provider.api_key_env] : undefined;
  return envKey && provider.type !== "codex" ? { kind: "api_key", key: envKey } : null;
}

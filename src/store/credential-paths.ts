import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where the credential files are, apart from their schemas (credentials.ts re-exports it): the
 * ACP starter looks for them before zod loads (src/acp/credentials-glance.ts).
 */
export interface CredentialPaths {
  mcAuth: string;
  codexAuth: string;
  claudeCredentials: string;
}

/** Where the credential files are; empty variables count as unset. */
export function credentialPaths(home: string, env: NodeJS.ProcessEnv): CredentialPaths {
  const userHome = env.HOME || homedir();
  return {
    mcAuth: join(home, "auth.json"),
    codexAuth: join(env.CODEX_HOME || join(userHome, ".codex"), "auth.json"),
    claudeCredentials: join(
      env.CLAUDE_CONFIG_DIR || join(userHome, ".claude"),
      ".credentials.json",
    ),
  };
}

import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where the credential files are (credentials.ts reads and writes them). A module of its own,
 * without zod: the sandbox's policy and the stores' paths need only these paths, the stdio
 * starter's probe (src/server/turn-facts.ts) and the ACP starter's credential glance
 * (src/acp/credentials-glance.ts) load them before zod has loaded.
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

import { type AgentClient, type Capability, isRemote } from "../../client/index.js";
import { SEED_CAPABILITIES } from "../../protocol/capabilities.js";
import { connect } from "../connect.js";
import type { Terminal } from "../terminal.js";

interface DemoNegotiation {
  client: AgentClient;
  missing: Capability[];
}

/**
 * Asks for every capability. A child that refuses stays uninitialized and says only
 * `unsupported_capability`, so the demo then asks a short-lived child per capability which ones
 * it offers, and negotiates exactly those: the walkthrough shows what this build can do.
 */
export async function negotiateAll(
  term: Terminal,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<DemoNegotiation> {
  // The seed's capabilities and ours the walkthrough shows (turns).
  const wanted: Capability[] = [...SEED_CAPABILITIES, "turn"];
  try {
    return { client: await connect(term, wanted, { env, cwd }), missing: [] };
  } catch (error) {
    if (!isRemote(error, "unsupported_capability")) throw error;
  }
  const offered = await Promise.all(wanted.map((capability) => probe(term, env, cwd, capability)));
  const present = wanted.filter((_, i) => offered[i]);
  return {
    client: await connect(term, present, { env, cwd }),
    missing: wanted.filter((_, i) => !offered[i]),
  };
}

async function probe(
  term: Terminal,
  env: NodeJS.ProcessEnv,
  cwd: string,
  capability: Capability,
): Promise<boolean> {
  try {
    const client = await connect(term, [capability], { env, cwd });
    await client.close();
    return true;
  } catch (error) {
    if (isRemote(error, "unsupported_capability")) return false;
    throw error;
  }
}

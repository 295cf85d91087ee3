import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import type { GlancedProvider } from "./credentials-glance.js";
import { defaultProviders } from "./default-providers.js";

/** What the ACP starter answers `initialize` from, besides the client's params and the files. */
export interface AcpStarterFacts {
  /** The SDK's PROTOCOL_VERSION, which the SDK's path answers. */
  protocolVersion: number;
  /** The providers with nothing configured (default-providers.ts). */
  defaults: GlancedProvider[];
}

/**
 * Read by scripts/bundle.js from the SDK and the engine themselves and inlined into
 * dist/child/acp-starter.cjs, so the starter loads neither and nothing is written twice.
 */
export function acpStarterFacts(): AcpStarterFacts {
  return { protocolVersion: PROTOCOL_VERSION, defaults: defaultProviders() };
}

import type { KnownProvider, SetupFindings } from "../../offline/setup-detect.js";
import type { Terminal } from "../terminal.js";

/**
 * A provider setup can set up: one mc already knows with a credential (a key variable, a login,
 * a configured keyless server), or a local server it found, which becomes a keyless
 * `openai-compatible` provider. `entry`: what setup writes under "providers" for it (null: the
 * file needs nothing for it).
 */
export interface Candidate {
  id: string;
  /** Where it came from, as the list shows it. */
  source: string;
  entry: { type?: "openai-compatible"; base_url: string } | null;
}

/**
 * Every candidate, the one to offer by default first: a server named with --server (the user
 * said so), then providers with a credential in their order (openai, anthropic, codex, then
 * custom ones), then servers found on their default ports.
 */
export function candidatesOf(findings: SetupFindings, named: boolean): Candidate[] {
  const known = findings.providers.filter((p) => p.ready).map(knownCandidate);
  const taken = new Set(findings.providers.map((p) => p.id));
  const servers: Candidate[] = [];
  for (const server of findings.servers) {
    const same = findings.providers.find((p) => p.baseUrl.replace(/\/+$/, "") === server.baseUrl);
    if (same) continue; // already configured: it is among the known ones
    let id = server.name;
    for (let n = 2; taken.has(id); n += 1) id = `${server.name}-${n}`;
    taken.add(id);
    servers.push({
      id,
      source: `${server.label} at ${server.baseUrl} (${server.models} ${server.models === 1 ? "model" : "models"}, no key)`,
      entry: { type: "openai-compatible", base_url: server.baseUrl },
    });
  }
  return named ? [...servers, ...known] : [...known, ...servers];
}

function knownCandidate(p: KnownProvider): Candidate {
  return { id: p.id, source: sourceText(p), entry: null };
}

function sourceText(p: KnownProvider): string {
  const c = p.credential;
  switch (c.from) {
    case "variable":
      return `key in ${c.variable}`;
    case "keyless":
      return `server at ${p.baseUrl} (configured, no key)`;
    case "mc_auth":
      return `credential in MC_HOME/auth.json`;
    case "codex_auth":
      return `Codex login (${c.path})`;
    case "claude_credentials":
      return `Claude Code login (${c.path})`;
    case "none":
      return "no credential";
  }
}

/** Says what setup found: each candidate, and what it found but cannot use. */
export function describeFindings(
  term: Terminal,
  findings: SetupFindings,
  candidates: Candidate[],
): void {
  if (candidates.length > 0) {
    term.line("Found:");
    candidates.forEach((c, i) => {
      term.line(`  ${String(i + 1).padStart(2)}  ${c.id.padEnd(10)}  ${c.source}`);
    });
  }
  if (findings.otherKeys.length > 0)
    term.line(
      `Also set: ${findings.otherKeys.join(", ")} (no built-in provider uses ${findings.otherKeys.length === 1 ? "it" : "them"}; an openai-compatible provider in config.json can, docs/providers.md).`,
    );
}

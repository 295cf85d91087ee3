import type { CachedRead } from "../../client/index.js";
import { plainLength, type Terminal, table } from "../terminal.js";

/**
 * Every model ID each provider's valid cache holds, marked enabled or not, and enabled models
 * that cache lacks: what `refresh` found is visible without opening the cache file.
 */
export function printCached(term: Terminal, cached: CachedRead): void {
  term.line(term.bold("Cached models"));
  const withCache = cached.providers.filter((p) => p.catalog_status === "available");
  if (withCache.length === 0) {
    term.line('  (no provider has a valid cached catalog yet: run "mc-agent refresh <provider>")');
    return;
  }
  for (const provider of withCache) {
    const models = cached.models.filter((m) => m.provider === provider.provider);
    const enabled = models.filter((m) => m.state === "enabled").length;
    term.line(`  ${term.bold(provider.provider)}  ${provider.models} cached, ${enabled} enabled`);
    const rows = models.map((m) => [
      `    ${mark(term, m.state)} ${m.id}`,
      m.state === "enabled_missing"
        ? term.yellow("enabled, but not in this provider's cached catalog (not selectable)")
        : (m.name ?? ""),
    ]);
    for (const line of table(rows, plainLength)) term.line(line);
  }
  if (cached.models.some((m) => m.state === "not_enabled"))
    term.line(
      '  To enable one: "mc-agent models enable <provider>/<model>" (--default also makes it your model).',
    );
}

function mark(term: Terminal, state: CachedRead["models"][number]["state"]): string {
  if (state === "enabled") return term.green("[x]");
  if (state === "enabled_missing") return term.yellow("[!]");
  return "[ ]";
}

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { buildProtocolSchema } from "../src/protocol/json-schema.js";
import { PACKAGE_ROOT } from "./helpers/child.js";

test("docs/protocol.schema.json is up to date (run `npm run schema`)", () => {
  const committed = readFileSync(join(PACKAGE_ROOT, "docs", "protocol.schema.json"), "utf8");
  assert.equal(committed, `${JSON.stringify(buildProtocolSchema(), null, 2)}\n`);
});

test("the published schema has no test-only method", () => {
  const schema = buildProtocolSchema() as { methods: Record<string, unknown> };
  assert.ok(!Object.keys(schema.methods).some((name) => name.startsWith("test.")));
  assert.ok("session.discover" in schema.methods && "operation.cancel" in schema.methods);
});

/** Which top-level folders of src/ each folder may import from (style.md's picture). */
const ALLOWED: Record<string, string[]> = {
  protocol: ["protocol"],
  store: ["store"],
  sessions: ["sessions", "store", "protocol"],
  http: ["http", "protocol"],
  credentials: ["credentials", "http", "store", "protocol"],
  models: ["models", "credentials", "http", "store", "protocol"],
  agent: ["agent", "protocol", "sessions", "models", "credentials", "http", "store"],
  server: ["server", "protocol", "sessions", "models", "credentials", "store", "agent"],
  // The ACP agent (docs/acp.md) drives our own server in-process.
  acp: ["acp", "server", "protocol", "sessions", "models", "credentials", "store", "agent"],
  client: ["client", "protocol"],
  cli: ["cli", "client", "protocol", "conformance"],
  conformance: ["conformance", "protocol", "client"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

test("imports follow the layering rules", () => {
  const src = join(PACKAGE_ROOT, "src");
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file);
    const layer = rel.split("/")[0] as string;
    const code = readFileSync(file, "utf8");
    for (const match of code.matchAll(/(?:from |import\()"(\.[^"]+)"/g)) {
      const target = relative(src, join(file, "..", match[1] as string)).split("/")[0] as string;
      // cli/main.ts starts the child for `mc-agent stdio` and the ACP agent for `mc-agent acp`:
      // the sanctioned cli -> server and cli -> acp edges.
      if (rel === "cli/main.ts" && (target === "server" || target === "acp")) continue;
      // doctor is the one command that reads the store directly (docs/cli.md, "doctor") and runs
      // the sandbox's own probe, and
      // `models enable` is the user's own settings edit, through the store's atomic writer and
      // the schema the child reads the file with.
      if (
        rel.startsWith("cli/doctor/") &&
        ["store", "models", "credentials", "agent"].includes(target)
      )
        continue;
      if (rel === "cli/commands/models-enable.ts" && target === "store") continue;
      // The memo every zod schema is built with on first use (docs/codegen.md, "Writing a
      // schema: built on first use") imports nothing: the store's schemas use it too.
      const imported = relative(src, join(file, "..", match[1] as string));
      if (imported === "protocol/lazy.js") continue;
      if (!(ALLOWED[layer] ?? []).includes(target)) violations.push(`${rel} imports ${target}`);
    }
    if (layer === "protocol" && /from "node:/.test(code)) violations.push(`${rel} imports node:`);
  }
  assert.deepEqual(violations, []);
});

test("the package's exports resolve: mc-agent/client and mc-agent/protocol", async () => {
  const client = await import("mc-agent/client");
  assert.equal(typeof client.AgentClient, "function");
  const protocol = await import("mc-agent/protocol");
  assert.equal(typeof protocol.METHODS, "object");
  assert.equal(protocol.LIMITS.frame_bytes, 1_048_576);
});

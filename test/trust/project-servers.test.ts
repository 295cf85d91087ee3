/**
 * Which MCP servers a child starts (docs/trust.md, "What waits, what applies"): the project's
 * only when trusted, replacing a global one of the same name, at most 32 in all.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_MCP_SERVERS } from "../../src/store/mcp-settings.js";
import { serversToStart } from "../../src/trust/project-servers.js";

const server = (command: string) => ({ command });
const many = (prefix: string, count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, server(prefix)]));

test("the project's servers only when trusted; a project server replaces the global of its name", () => {
  const settings = {
    global: { mcp_servers: { a: server("global-a"), b: server("global-b") } },
    project: { mcp_servers: { b: server("project-b"), c: server("project-c") } },
  };
  for (const trust of ["untrusted", "changed"] as const)
    assert.deepEqual(serversToStart(settings, trust).servers, settings.global.mcp_servers);
  const trusted = serversToStart(settings, "trusted");
  assert.deepEqual(Object.keys(trusted.servers ?? {}), ["a", "b", "c"]);
  assert.equal(
    trusted.servers?.b && "command" in trusted.servers.b && trusted.servers.b.command,
    "project-b",
  );
  assert.deepEqual(trusted.dropped, []);
});

test("at most 32 in all: the project's new servers past the bound are left out", () => {
  assert.equal(MAX_MCP_SERVERS, 32);
  const global = many("g", 30);
  const atBound = serversToStart(
    { global: { mcp_servers: global }, project: { mcp_servers: many("p", 2) } },
    "trusted",
  );
  assert.equal(Object.keys(atBound.servers ?? {}).length, 32);
  assert.deepEqual(atBound.dropped, []);
  const past = serversToStart(
    {
      global: { mcp_servers: global },
      project: { mcp_servers: { ...many("p", 3), g0: server("x") } },
    },
    "trusted",
  );
  assert.equal(Object.keys(past.servers ?? {}).length, 32);
  assert.deepEqual(past.dropped, ["p2"]);
  // A replacement takes no new place, even past the bound.
  assert.equal(past.servers?.g0 && "command" in past.servers.g0 && past.servers.g0.command, "x");
});

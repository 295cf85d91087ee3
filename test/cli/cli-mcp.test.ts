import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { MCP_STARTUP_MAX_MS } from "../../src/cli/mcp-watch.js";
import { McpStatusResult } from "../../src/protocol/schemas/mcp.js";
import { MCP_STARTUP_TIMEOUT_MS } from "../../src/store/mcp-settings.js";
import { CHILD_BIN, type Sandbox, sandbox } from "../helpers/child.js";
import { type CliRun, runCli } from "../helpers/cli.js";
import { hasScript, PtyRun, shellQuote } from "../helpers/pty.js";
import {
  allGone,
  everythingStdio,
  hanging,
  memoryStdio,
  processesWith,
  startEverythingHttp,
  writeMcpHome,
} from "../mcp/mcp-world.js";

/** Real servers on a loaded machine: each run gets this long before the test gives up. */
const RUN_MS = 150_000;

/** A hanging server whose command line carries a marker, to find it in the process table. */
function marked(extra: object): { marker: string; server: object } {
  const marker = `mc-hang-${randomUUID()}`;
  return {
    marker,
    server: hanging({ args: ["-e", "setInterval(() => {}, 1000)", marker], ...extra }),
  };
}

/** The piped CLI's note when servers are still starting after its quiet wait. */
const WAITING_NOTE =
  /^mc-agent: Waiting for \d+ MCP servers? to start: [\w, -]+ \(Ctrl-C stops waiting\)\.\n/;

/** `mc-agent mcp` and doctor's MCP section, as processes, with real MCP servers. */
describe("CLI: mcp", { timeout: 600_000 }, () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-mcp-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, NO_COLOR: "1" };
  });
  afterEach(() => box.cleanup());
  const run = (args: string[]) => runCli(args, { cwd: box.workspace, env, timeoutMs: RUN_MS });
  const lines = (r: CliRun) => r.stdout.trimEnd().split("\n");
  it("ready servers over stdio and streamable HTTP: a line each (name, transport, state, tools), the count, exit 0", async () => {
    const http = await startEverythingHttp();
    try {
      writeMcpHome(box.home, {
        everything: everythingStdio(),
        memory: memoryStdio({ tools: { allow: ["read_graph"] } }),
        remote: { url: http.url, startup_timeout_ms: 100_000 },
        off: { url: "http://127.0.0.1:9/mcp", enabled: false },
      });
      const r = await run(["mcp"]);
      assert.equal(r.code, 0, r.stderr);
      const [first, second, third, fourth, summary, ...rest] = lines(r);
      assert.match(first ?? "", /^everything {2}stdio {2}ready {5}\d+ tools$/);
      assert.match(second ?? "", /^memory {6}stdio {2}ready {5} +1 tool$/);
      assert.match(third ?? "", /^remote {6}http {3}ready {5}\d+ tools$/);
      assert.match(fourth ?? "", /^off {9}http {3}disabled +0 tools$/);
      assert.equal(summary, "4 MCP servers: 3 ready, 1 disabled.");
      assert.deepEqual(rest, []);
      // A loaded machine may take longer than the quiet wait to start the servers: then (and only
      // then) the piped CLI says what it waits for. Nothing else may reach stderr.
      assert.equal(r.stderr.replace(WAITING_NOTE, ""), "");
      assert.ok(!r.stdout.includes("127.0.0.1"), "no URL is shown");
    } finally {
      await http.stop();
    }
  });

  it("failed servers: the safe code and its meaning, never the command or the variable; exit 1", async () => {
    writeMcpHome(box.home, {
      nope: { command: join(box.root, "no-such-server-binary") },
      secret: memoryStdio({ env: { TOKEN: "$MC_CLI_MCP_UNSET_VARIABLE" } }),
    });
    const r = await run(["mcp"]);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(lines(r), [
      "nope    stdio  failed  0 tools  spawn_failed: its command could not be started",
      'secret  stdio  failed  0 tools  variable_missing: an "env" or "headers" value names an unset variable',
      "2 MCP servers: 2 failed.",
    ]);
    const all = r.stdout + r.stderr;
    assert.ok(!all.includes("no-such-server-binary") && !all.includes("MC_CLI_MCP_UNSET"));
  });

  it("a hanging server is waited for up to its startup timeout: failed startup_timeout, the wait noted on stderr, exit 1, no server left", async () => {
    const { marker, server } = marked({ startup_timeout_ms: 5000 });
    writeMcpHome(box.home, { stuck: server });
    const r = await run(["mcp"]);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(lines(r), [
      "stuck  stdio  failed  0 tools  startup_timeout: no handshake and tool list within its startup_timeout_ms",
      "1 MCP server: 1 failed.",
    ]);
    // Without a terminal, one note once the wait has lasted 2 s (the timeout is 5 s).
    assert.equal(
      r.stderr,
      "mc-agent: Waiting for 1 MCP server to start: stuck (Ctrl-C stops waiting).\n",
    );
    await allGone(processesWith(marker));
  });

  it("--no-wait: a hanging server is shown starting at once (exit 0), and the child's shutdown stops it", async () => {
    const { marker, server } = marked({ startup_timeout_ms: MCP_STARTUP_TIMEOUT_MS.max });
    writeMcpHome(box.home, {
      stuck: server,
      off: { command: "never-run", enabled: false },
    });
    const r = await run(["mcp", "--no-wait"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r), [
      "stuck  stdio  starting  0 tools",
      "off    stdio  disabled  0 tools",
      "2 MCP servers: 1 starting, 1 disabled.",
    ]);
    assert.equal(r.stderr, "");
    await allGone(processesWith(marker));
  });

  it("--json prints the mcp.status result after the wait, in the order of the file", async () => {
    writeMcpHome(box.home, {
      memory: memoryStdio({ tools: { deny: ["read_graph"] } }),
      stuck: hanging({ startup_timeout_ms: 1000 }),
      off: { url: "http://127.0.0.1:9/mcp", enabled: false },
    });
    const r = await run(["mcp", "--json"]);
    assert.equal(r.code, 1, r.stderr);
    const parsed = McpStatusResult().parse(JSON.parse(r.stdout));
    assert.deepEqual(Object.keys(JSON.parse(r.stdout)), ["servers"]);
    const [memory, ...others] = parsed.servers;
    assert.equal(memory?.state, "ready");
    assert.ok((memory?.tools ?? 0) > 0);
    assert.deepEqual(
      [{ ...memory, tools: 0 }, ...others],
      [
        { name: "memory", transport: "stdio", state: "ready", tools: 0, error: null },
        { name: "stuck", transport: "stdio", state: "failed", tools: 0, error: "startup_timeout" },
        { name: "off", transport: "http", state: "disabled", tools: 0, error: null },
      ],
    );
  });

  it("--json --no-wait: a hanging server's status as starting, exit 0", async () => {
    writeMcpHome(box.home, { stuck: hanging({ startup_timeout_ms: MCP_STARTUP_TIMEOUT_MS.max }) });
    const r = await run(["mcp", "--json", "--no-wait"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      servers: [{ name: "stuck", transport: "stdio", state: "starting", tools: 0, error: null }],
    });
  });

  it("none configured: the sentence, exit 0; --json an empty list", async () => {
    const r = await run(["mcp"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^No MCP servers configured \(add them under "mcp_servers"/);
    const j = await run(["mcp", "--json"]);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(JSON.parse(j.stdout), { servers: [] });
  });

  it("a bad flag or an operand is a usage error: exit 2, nothing started", async () => {
    for (const args of [
      ["mcp", "--bogus"],
      ["mcp", "tools"],
      ["mcp", "--json=1"],
    ]) {
      const r = await run(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /\(usage_error\)\. Run "mc-agent mcp --help"\.\n$/);
    }
  });

  it("an invalid server name stops the command like any invalid setting, explained by the name rule", async () => {
    writeFileSync(
      join(box.home, "config.json"),
      '{\n  "mcp_servers": {\n    "bad__name": {"command": "node"}\n  }\n}\n',
    );
    const r = await run(["mcp"]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /config\.json:3:5 \(global settings\): an MCP server name that is not allowed \(1 to 24 of A-Z a-z 0-9 _ -, .+never containing __.+\) "bad__name"\.\n {2}2 \| {3}"mcp_servers": \{\n {2}3 \| {5}"bad__name": \{"command": "node"\}\n {4}\| {5}\^\n/,
    );
    assert.match(r.stderr, /no MCP servers\) \(configuration_invalid\)/);
  });

  it("Ctrl-C while waiting: the servers as they are, exit 130, the hanging server stopped", async () => {
    const { marker, server } = marked({ startup_timeout_ms: MCP_STARTUP_TIMEOUT_MS.max });
    writeMcpHome(box.home, { stuck: server });
    const proc = spawn(process.execPath, [CHILD_BIN, "mcp"], {
      cwd: box.workspace,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout.setEncoding("utf8").on("data", (t: string) => {
      stdout += t;
    });
    const noted = new Promise<void>((resolve) => {
      proc.stderr.setEncoding("utf8").on("data", (t: string) => {
        stderr += t;
        if (stderr.includes("Waiting for 1 MCP server")) resolve();
      });
    });
    const code = new Promise<number | null>((resolve) => proc.on("close", resolve));
    await noted;
    proc.kill("SIGINT");
    assert.equal(await code, 130, stderr);
    assert.equal(stdout, "stuck  stdio  starting  0 tools\n1 MCP server: 1 starting.\n");
    assert.match(
      stderr,
      /mc-agent: interrupted; stopped waiting for the servers still starting\.\n$/,
    );
    await allGone(processesWith(marker));
  });

  it("at a terminal: the live line names the server waited for; Ctrl-C (the terminal's SIGINT) exits 130 and the server is stopped", {
    skip: hasScript() ? false : "util-linux script is not installed",
  }, async () => {
    const { marker, server } = marked({ startup_timeout_ms: MCP_STARTUP_TIMEOUT_MS.max });
    writeMcpHome(box.home, { everything: everythingStdio(), stuck: server });
    const line = `exec ${[process.execPath, CHILD_BIN, "mcp"].map(shellQuote).join(" ")}`;
    const pty = new PtyRun(line, { cwd: box.workspace, env });
    try {
      // Once everything is ready, only the hanging server is named.
      await pty.waitFor("Waiting for 1 MCP server to start: stuck (Ctrl-C stops waiting)", RUN_MS);
      pty.type("\x03");
      assert.equal(await pty.done, 130, pty.output);
      assert.match(pty.output, /everything {2}stdio {2}ready +\d+ tools\r?\n/);
      assert.match(pty.output, /stuck {7}stdio {2}starting +0 tools\r?\n/);
      assert.match(pty.output, /interrupted; stopped waiting for the servers still starting\./);
      await allGone(processesWith(marker));
    } finally {
      pty.kill();
    }
  });

  it("the CLI's own bound is the largest startup timeout the settings allow", () => {
    assert.equal(MCP_STARTUP_MAX_MS, MCP_STARTUP_TIMEOUT_MS.max);
  });
});

describe("CLI: doctor's MCP servers section", { timeout: 600_000 }, () => {
  let box: Sandbox;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    box = sandbox("mc-cli-mcp-doctor-");
    env = { PATH: process.env.PATH, HOME: box.home, MC_HOME: box.home, NO_COLOR: "1" };
  });
  afterEach(() => box.cleanup());
  const doctor = () => runCli(["doctor"], { cwd: box.workspace, env, timeoutMs: RUN_MS });
  /** The section: its heading and the indented lines under it. */
  const section = (out: string) => {
    const all = out.split("\n");
    const start = all.indexOf("MCP servers");
    assert.ok(start >= 0, out);
    const body = all.slice(start + 1);
    return body.slice(
      0,
      body.findIndex((l) => !l.startsWith("  ")),
    );
  };

  it("the same lines as mc-agent mcp; a failed server is a problem in the verdict; the servers are stopped", async () => {
    const { marker, server } = marked({ startup_timeout_ms: 1500 });
    writeMcpHome(box.home, {
      memory: memoryStdio({ tools: { allow: ["read_graph"] } }),
      stuck: server,
      off: { url: "http://127.0.0.1:9/mcp", enabled: false },
    });
    const r = await doctor();
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(section(r.stdout), [
      "  memory  stdio  ready     1 tool",
      "  stuck   stdio  failed    0 tools  startup_timeout: no handshake and tool list within its startup_timeout_ms",
      "  off     http   disabled  0 tools",
    ]);
    assert.equal(
      r.stdout.trimEnd().split("\n").at(-1),
      "Verdict: 1 problem: MCP server stuck failed (startup_timeout).",
    );
    await allGone(processesWith(marker));
  });

  it("none configured: the sentence, not a problem", async () => {
    const r = await doctor();
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(section(r.stdout), [
      '  No MCP servers configured (add them under "mcp_servers" in MC_HOME/config.json; docs/mcp.md).',
    ]);
  });

  it("an invalid server name: none started, the name and the rule", async () => {
    writeFileSync(
      join(box.home, "config.json"),
      JSON.stringify({ mcp_servers: { ok: { command: "node" }, trailing_: { command: "node" } } }),
    );
    const r = await doctor();
    assert.equal(r.code, 1);
    assert.deepEqual(section(r.stdout), [
      "  none started: MC_HOME/config.json is invalid (above)",
      '  "trailing_" is an MCP server name that is not allowed (1 to 24 of A-Z a-z 0-9 _ -, starting with a letter or digit, not ending in _, never containing __: the model sees mcp__<server>__<tool>).',
    ]);
    assert.match(
      r.stdout,
      /\n {2}global {3}invalid: .+config\.json:1:41 \(global settings\): an MCP server name/,
    );
    assert.equal(
      r.stdout.trimEnd().split("\n").at(-1),
      "Verdict: 1 problem: MC_HOME/config.json is invalid.",
    );
  });
});

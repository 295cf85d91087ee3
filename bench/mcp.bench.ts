import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { McpManager } from "../src/agent/mcp/manager.js";
import type { Frame } from "../src/conformance/frame.js";
import { sandbox, TestChild } from "../src/conformance/harness.js";
import { loadSettings } from "../src/store/settings.js";
import { type Bench, type BenchRow, median, percentile } from "./report.js";

/**
 * Issue 22's figure: what configured MCP servers add to a frontend's wait for `initialize`.
 * The child answers the `initialize` already waiting on stdin before it loads the MCP SDK or
 * spawns a server (docs/mcp.md, "Lifecycle"), so 3 servers, one of them hanging at startup,
 * should add nothing but reading their part of config.json. Target: under 5 ms added.
 */
const PAIRS = 80;
/** Repetitions of the child's server-dependent work before it answers: warm, and cold. */
const IN_PROCESS = 2000;
const COLD = 20;
const run = promisify(execFile);

const root = fileURLToPath(new URL("../..", import.meta.url));
const official = (name: string) =>
  join(root, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");

/** Two official servers (dev dependencies) and one that never answers, with the longest timeout. */
const THREE_SERVERS = {
  mcp_servers: {
    everything: {
      command: process.execPath,
      args: [official("server-everything"), "stdio"],
      startup_timeout_ms: 120_000,
    },
    memory: { command: process.execPath, args: [official("server-memory")] },
    stuck: {
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      startup_timeout_ms: 120_000,
    },
  },
};

interface Sample {
  /** Spawn to the initialize result read. */
  initialize: number;
  /** A status request sent the moment that result was read, to its answer. */
  status: number;
}

async function sample(config: object, check = false): Promise<Sample> {
  const box = sandbox("mc-bench-mcp-");
  writeFileSync(join(box.home, "config.json"), JSON.stringify(config));
  const started = performance.now();
  const child = new TestChild({ cwd: box.workspace, home: box.home });
  try {
    const init = await child.initialize(["mcp"]);
    const initialized = performance.now();
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    const status = await child.request("status", {});
    const answered = performance.now();
    if (!status.result) throw new Error("status failed");
    if (check) await checkServers(child, config);
    return { initialize: initialized - started, status: answered - initialized };
  } finally {
    await child.close();
    box.cleanup();
  }
}

/** Once: the servers really start (the two official ones become ready, the third hangs). */
async function checkServers(child: TestChild, config: object): Promise<void> {
  const names = Object.keys((config as typeof THREE_SERVERS).mcp_servers ?? {});
  if (names.length === 0) return;
  const ready = (name: string) => (f: Frame & { method?: string; params?: unknown }) => {
    const server = (f.params as { server?: { name: string; state: string } } | undefined)?.server;
    return f.method === "mcp.changed" && server?.name === name && server.state === "ready";
  };
  for (const name of ["everything", "memory"])
    if (!child.frames.some(ready(name))) await child.waitFor(ready(name), 120_000);
  const answer = await child.request("mcp.status", {});
  const states = (answer.result as { servers: { state: string }[] }).servers.map((s) => s.state);
  if (states.join() !== "ready,ready,starting") throw new Error(`servers: ${states.join()}`);
}

/**
 * What the child does before answering `initialize` that depends on the servers: reading the
 * settings (`mcp_servers` parsed by its strict schema) and making the manager (its plans and
 * one connection object per server; nothing started). Warm: the median of many runs in this
 * process; cold: the first run in a fresh process (bench/mcp-cold.ts), as a child pays it.
 */
async function beforeAnswer(config: object): Promise<{ warm: number; cold: number }> {
  const box = sandbox("mc-bench-mcp-");
  try {
    writeFileSync(join(box.home, "config.json"), JSON.stringify(config));
    const warm: number[] = [];
    for (let i = 0; i < IN_PROCESS; i += 1) {
      const started = performance.now();
      const settings = loadSettings(box.home, box.workspace);
      new McpManager({ servers: settings.global.mcp_servers, env: {}, workspace: box.workspace });
      warm.push(performance.now() - started);
    }
    const cold: number[] = [];
    const script = fileURLToPath(new URL("./mcp-cold.js", import.meta.url));
    for (let i = 0; i < COLD; i += 1) {
      const { stdout } = await run(process.execPath, [script, box.home, box.workspace], {
        env: { PATH: process.env.PATH },
      });
      cold.push(Number(stdout.trim()));
    }
    return { warm: median(warm), cold: median(cold) };
  } finally {
    box.cleanup();
  }
}

const ABOUT = `
Spawn to the \`initialize\` result of a fresh child negotiating \`mcp\`, with
MC_HOME/config.json \`{}\` against one configuring 3 stdio MCP servers: server-everything and
server-memory (the official servers, dev dependencies) and one that never answers
(startup_timeout_ms 120,000, so it is still starting throughout). ${PAIRS} pairs after one
uncounted pair, the order alternating (ABBA), each child in a fresh MC_HOME and workspace with
the harness's clean environment (PATH and the store variables, no NODE_EXTRA_CA_CERTS); the
first run with servers also waits until the two official servers are ready and the third is
still starting, so the setup is known to be real. The second row is a \`status\` request written
the moment the \`initialize\` result is read: the child loads the MCP SDK and spawns the servers
right after answering \`initialize\`, and this shows what that costs the next method. Process
start-up varies by tens of milliseconds from one spawn to the next (see the first row's spread),
more than the target, so the last two rows time the only work of the child before its answer
that depends on the servers: reading config.json with \`mcp_servers\` (its strict schema, which
zod compiles at its first parse) and making the manager, which starts nothing yet; cold as the
child runs it once (the first run in a fresh process, bench/mcp-cold.ts), and warm.
`;

const bench: Bench = {
  title: "MCP servers at child start (issue 22)",
  about: ABOUT,
  async run(): Promise<BenchRow[]> {
    const none: Sample[] = [];
    const three: Sample[] = [];
    // One pair first, not counted: the first spawns warm the file cache for everything after.
    await sample({});
    await sample(THREE_SERVERS);
    for (let i = 0; i < PAIRS; i += 1) {
      // ABBA: neither side always runs first, after the other's shutdown.
      if (i % 2 === 0) {
        none.push(await sample({}));
        three.push(await sample(THREE_SERVERS, i === 0));
      } else {
        three.push(await sample(THREE_SERVERS));
        none.push(await sample({}));
      }
    }
    const init = {
      three: median(three.map((s) => s.initialize)),
      none: median(none.map((s) => s.initialize)),
    };
    const status = {
      three: median(three.map((s) => s.status)),
      none: median(none.map((s) => s.status)),
    };
    const differences = three.map((s, i) => s.initialize - (none[i] as Sample).initialize);
    const paired = median(differences);
    const spread = `${percentile(differences, 25).toFixed(1)} to ${percentile(differences, 75).toFixed(1)} ms`;
    const added = init.three - init.none;
    const before = { three: await beforeAnswer(THREE_SERVERS), none: await beforeAnswer({}) };
    const coldAdded = before.three.cold - before.none.cold;
    const warmAdded = (before.three.warm - before.none.warm) * 1000;
    return [
      {
        name: `child start to initialize result, 3 MCP servers configured (one hanging) (median of ${PAIRS})`,
        figure: init.three,
        baseline: init.none,
        unit: "ms",
        baselineName: "the same with no MCP server (config.json `{}`)",
        note: `lower is better; added ${added.toFixed(2)} ms (the pairs' differences: median ${paired.toFixed(2)} ms, middle half ${spread}): start-up noise, wider than the target; the last rows isolate the servers' share`,
      },
      {
        name: `status round trip sent right after the initialize result, 3 MCP servers configured (median of ${PAIRS})`,
        figure: status.three,
        baseline: status.none,
        unit: "ms",
        baselineName: "the same with no MCP server",
        note: `lower is better; added ${(status.three - status.none).toFixed(2)} ms (the SDK's import and the spawns begin on the child's event loop right after the initialize answer)`,
      },
      {
        name: `the child's server-dependent work before it answers, cold (first run in a fresh process: settings read, McpManager made), 3 servers (median of ${COLD} processes)`,
        figure: before.three.cold,
        baseline: before.none.cold,
        unit: "ms",
        baselineName: "the same with config.json `{}`",
        note: `lower is better; added ${coldAdded.toFixed(2)} ms; target under 5 ms added (${coldAdded < 5 ? "met" : "not met"})`,
      },
      {
        name: `the same work warm (in process, median of ${IN_PROCESS})`,
        figure: before.three.warm * 1000,
        baseline: before.none.warm * 1000,
        unit: "µs",
        baselineName: "the same with config.json `{}`",
        note: `lower is better; added ${warmAdded.toFixed(1)} µs`,
      },
    ];
  },
};

export default bench;

import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { type Sandbox, sandbox } from "../src/conformance/harness.js";
import {
  type CacheModelFixture,
  cacheDoc,
  writeCache,
  writeConfig,
} from "../test/models/fixtures.js";
import { CODEX_VERSION, installCodex } from "./peer-install.js";
import { cpuMs } from "./proc-cpu.js";
import { median } from "./report.js";
import { RESPONSES } from "./turn-formats.js";
import { codexStreamer } from "./turn-peer-codex.js";
import { type BenchServer, startBenchServer } from "./turn-server.js";

/**
 * `node dist/bench/acp-start-ab.js [starts] [side ...]`: issue 44's ACP start-up rows. Spawn of
 * `mc-agent acp` to its answer to an editor's `initialize`, then to its answer to `session/new`
 * (a session ready for a prompt, on a warm home whose model is the bench server's), against a
 * bare `node -e ""` start to exit and Codex app-server's spawn to its `thread/start` result,
 * all interleaved, each round's order rotated. A side is `name=<folder holding bin/ and dist/>`
 * (a copy of another build) or `name=.` (this build), either followed by `,VAR=value` for its
 * environment; `,caps=plain` sends the initialize without terminal authentication. Each side
 * starts on a warm home of its own, its first two starts dropped (the first writes the code
 * cache). Every process gets PATH and the store variables only (no NODE_EXTRA_CA_CERTS). Not a
 * *.bench.ts: it writes nothing into docs/benchmarks.md; the figures go there by hand.
 */
const starts = Number(process.argv[2] ?? 20);
const specs = process.argv.slice(3);

/** What an editor such as Zed offers: its file system, terminals and terminal authentication. */
const EDITOR = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  auth: { terminal: true },
  _meta: { "terminal-auth": true },
};
const PLAIN = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

interface Times {
  initialize: number;
  ready: number;
  /** The process's CPU time when session/new was answered (proc-cpu.ts). */
  cpu: number;
}

interface Side {
  name: string;
  start: () => Promise<Times>;
  times: Times[];
}

/** A warm home whose selected model is the bench server's (as bench/turn-world.ts writes it). */
function benchHome(server: BenchServer, box: Sandbox): void {
  const base_url = RESPONSES.baseUrl(server.url);
  writeConfig(box, {
    providers: { [RESPONSES.provider]: { base_url } },
    enabled_models: [`${RESPONSES.provider}/${RESPONSES.model}`],
    model: `${RESPONSES.provider}/${RESPONSES.model}`,
  });
  const model: CacheModelFixture = { id: RESPONSES.model, name: RESPONSES.name };
  writeCache(
    box,
    RESPONSES.provider,
    cacheDoc(RESPONSES.provider, { type: RESPONSES.type, base_url }, [model]),
  );
}

function bareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, ["-e", ""], {
      stdio: "ignore",
      env: { PATH: process.env.PATH },
    });
    proc.on("error", reject);
    proc.on("exit", () => resolve(performance.now() - started));
  });
}

/** One editor's start of `mc-agent acp`: spawn → initialize answered → session/new answered. */
function acpStart(
  bin: string,
  box: Sandbox,
  env: Record<string, string>,
  caps: object,
): Promise<Times> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [bin, "acp"], {
      cwd: box.workspace,
      env: {
        PATH: process.env.PATH,
        HOME: box.root,
        MC_HOME: box.home,
        CODEX_HOME: `${box.root}/no-codex`,
        CLAUDE_CONFIG_DIR: `${box.root}/no-claude`,
        // The code cache of its own (src/boot/code-cache.ts keeps a few entries per bundle in
        // the temp folder, which every build on the machine shares): no other start evicts it.
        TMPDIR: box.root,
        ...RESPONSES.keyEnv,
        ...env,
      },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let buffer = "";
    let initialize = 0;
    proc.on("error", reject);
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      for (let lf = buffer.indexOf("\n"); lf !== -1; lf = buffer.indexOf("\n")) {
        const frame = JSON.parse(buffer.slice(0, lf)) as {
          id?: number;
          result?: unknown;
          error?: unknown;
        };
        buffer = buffer.slice(lf + 1);
        if (frame.id === 0) {
          if (!frame.result)
            return reject(new Error(`initialize failed: ${JSON.stringify(frame.error)}`));
          initialize = performance.now() - started;
          const params = { cwd: box.workspace, mcpServers: [] };
          proc.stdin.write(
            `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params })}\n`,
          );
        }
        if (frame.id === 1) {
          if (!frame.result)
            return reject(new Error(`session/new failed: ${JSON.stringify(frame.error)}`));
          const ready = performance.now() - started;
          const cpu = cpuMs(proc.pid);
          proc.on("exit", () => resolve({ initialize, ready, cpu }));
          proc.stdin.end();
        }
      }
    });
    const params = {
      protocolVersion: 1,
      clientCapabilities: caps,
      clientInfo: { name: "bench", version: "1" },
    };
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params })}\n`,
    );
  });
}

const server = await startBenchServer();
const homes: Sandbox[] = [];
const sides: Side[] = [];
for (const spec of specs.length > 0 ? specs : ["ours=."]) {
  const [head = "", ...vars] = spec.split(",");
  const [name = head, folder = "."] = head.split("=");
  const env = Object.fromEntries(
    vars.map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)]),
  );
  const caps = env.caps === "plain" ? PLAIN : EDITOR;
  delete env.caps;
  const box = sandbox("mc-bench-acp-start-");
  benchHome(server, box);
  homes.push(box);
  const bin = `${folder === "." ? process.cwd() : folder}/bin/mc-agent.js`;
  sides.push({ name, times: [], start: () => acpStart(bin, box, env, caps) });
}
const install = await installCodex();
if ("skipped" in install) process.stderr.write(`Codex left out: ${install.skipped}\n`);
else {
  const box = sandbox("mc-bench-acp-start-codex-");
  homes.push(box);
  sides.push({
    name: `Codex app-server ${CODEX_VERSION} (thread/start)`,
    times: [],
    start: async () => {
      const s = await codexStreamer(install.binary, RESPONSES, server, box);
      const cpu = cpuMs(s.proc.pid);
      await s.close();
      return { initialize: Number.NaN, ready: s.startupMs, cpu };
    },
  });
}
sides.push({
  name: 'bare node -e ""',
  times: [],
  start: async () => {
    const t = await bareNode();
    return { initialize: t, ready: t, cpu: Number.NaN };
  },
});

try {
  for (const side of sides) for (let i = 0; i < 2; i++) await side.start();
  for (let i = 0; i < starts; i++)
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length] as Side;
      side.times.push(await side.start());
    }
  const bare = sides[sides.length - 1] as Side;
  const codex = sides.find((s) => s.name.startsWith("Codex"));
  const bareMs = median(bare.times.map((t) => t.ready));
  const codexMs = codex ? median(codex.times.map((t) => t.ready)) : Number.NaN;
  process.stdout.write(`${bare.name}: median ${bareMs.toFixed(1)} ms\n`);
  if (codex)
    process.stdout.write(
      `${codex.name}: median ${codexMs.toFixed(1)} ms (${(codexMs / bareMs).toFixed(2)}x bare node), CPU median ${median(codex.times.map((t) => t.cpu)).toFixed(0)} ms\n`,
    );
  for (const side of sides.slice(0, specs.length || 1)) {
    const init = median(side.times.map((t) => t.initialize));
    const ready = median(side.times.map((t) => t.ready));
    process.stdout.write(
      `${side.name}: initialize ${init.toFixed(1)} ms (${(init / bareMs).toFixed(2)}x bare node), session/new ${ready.toFixed(1)} ms (${(ready / bareMs).toFixed(2)}x bare node${codex ? `, ${(ready / codexMs).toFixed(2)}x Codex thread/start` : ""}), CPU median ${median(side.times.map((t) => t.cpu)).toFixed(0)} ms; load average ${loadavg()[0]?.toFixed(1)}\n`,
    );
  }
} finally {
  for (const home of homes) home.cleanup();
  await server.close();
}

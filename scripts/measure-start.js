// Spawn → `initialize` result of the built child against a bare `node -e ""` start to exit,
// through the whole start a frontend gets (bin/mc-agent.js → src/entry.ts → src/boot/starter.ts →
// the bundle: src/boot/README.md),
// alternating the two so that a machine's load falls on both alike (docs/benchmarks.md,
// "Start-up profile"). Usage: node scripts/measure-start.js [rounds=20] [bin=bin/mc-agent.js ...]
// Several bins (another build's bin/mc-agent.js) are measured in the same rounds, interleaved.
// Prints the medians and their ratios to the bare start; NODE_EXTRA_CA_CERTS is never passed (it costs every node
// start its own ~90 ms). Not part of `npm run bench`: a quick check while cutting start-up.
// On Linux also each child's CPU time up to its result (all its threads, /proc/<pid>/task/*/schedstat),
// which other processes' load moves less than the wall time.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const rounds = Number(process.argv[2] ?? 20);
const bins = (process.argv.length > 3 ? process.argv.slice(3) : ["bin/mc-agent.js"]).map((b) =>
  resolve(b),
);
const capabilities = (process.env.CAPS ?? "operation.cancel").split(",");

function bare() {
  return new Promise((done, fail) => {
    const started = performance.now();
    const proc = spawn(process.execPath, ["-e", ""], { env: { PATH: process.env.PATH } });
    proc.on("error", fail);
    proc.on("exit", () => done(performance.now() - started));
  });
}

/** The process's CPU time so far in ms, all threads, or NaN where /proc has no schedstat. */
function cpuTime(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

function child(bin) {
  const root = mkdtempSync(join(tmpdir(), "mc-start-"));
  return new Promise((done, fail) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [bin, "stdio"], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: root, MC_HOME: join(root, "home") },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    proc.on("error", fail);
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      if (!out.includes("\n")) return;
      const elapsed = performance.now() - started;
      const cpu = cpuTime(proc.pid);
      const frame = JSON.parse(out.slice(0, out.indexOf("\n")));
      proc.kill("SIGKILL");
      proc.on("exit", () => {
        rmSync(root, { recursive: true, force: true });
        if (!frame.result) fail(new Error(`initialize failed: ${JSON.stringify(frame.error)}`));
        else done({ elapsed, cpu });
      });
    });
    proc.stdin.write(
      `${JSON.stringify({
        id: "1",
        method: "initialize",
        params: {
          protocol_version: 1,
          client: { name: "measure-start", version: "1.0.0" },
          required_capabilities: capabilities,
        },
      })}\n`,
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bares = [];
const childs = bins.map(() => []);
const cpus = bins.map(() => []);
// The first start may build the compile cache: not a frontend's usual start.
for (const bin of bins) await child(bin);
for (let i = 0; i < rounds; i++) {
  bares.push(await bare());
  for (const [j, bin] of bins.entries()) {
    const { elapsed, cpu } = await child(bin);
    childs[j].push(elapsed);
    cpus[j].push(cpu);
  }
}
const b = median(bares);
console.log(`bare node -e "": ${b.toFixed(1)} ms (median of ${rounds})`);
for (const [j, bin] of bins.entries()) {
  const c = median(childs[j]);
  const cpu = median(cpus[j]);
  const cpuText = Number.isNaN(cpu) ? "" : `, CPU ${cpu.toFixed(1)} ms`;
  console.log(`${bin}: ${c.toFixed(1)} ms, ratio ${(c / b).toFixed(2)}${cpuText}`);
}

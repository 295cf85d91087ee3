// Spawn → `initialize` result of the built child against a bare `node -e ""` start to exit,
// alternating the two so that a machine's load falls on both alike (docs/benchmarks.md,
// "Start-up profile"). Usage: node scripts/measure-start.js [rounds=20] [bin=bin/mc-agent.js ...]
// Several bins (another build's bin/mc-agent.js) are measured in the same rounds, interleaved.
// Prints the medians and their ratios to the bare start; NODE_EXTRA_CA_CERTS is never passed (it costs every node
// start its own ~90 ms). Not part of `npm run bench`: a quick check while cutting start-up.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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
      const frame = JSON.parse(out.slice(0, out.indexOf("\n")));
      proc.kill("SIGKILL");
      proc.on("exit", () => {
        rmSync(root, { recursive: true, force: true });
        if (!frame.result) fail(new Error(`initialize failed: ${JSON.stringify(frame.error)}`));
        else done(elapsed);
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
// The first start may build the compile cache: not a frontend's usual start.
for (const bin of bins) await child(bin);
for (let i = 0; i < rounds; i++) {
  bares.push(await bare());
  for (const [j, bin] of bins.entries()) childs[j].push(await child(bin));
}
const b = median(bares);
console.log(`bare node -e "": ${b.toFixed(1)} ms (median of ${rounds})`);
for (const [j, bin] of bins.entries()) {
  const c = median(childs[j]);
  console.log(`${bin}: ${c.toFixed(1)} ms, ratio ${(c / b).toFixed(2)}`);
}

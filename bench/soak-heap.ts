import { readdirSync } from "node:fs";
import { CHILD_BIN } from "../src/conformance/harness.js";
import { soak, TOKENS_PER_TURN } from "./soak.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { startBenchServer } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * `node dist/bench/soak-heap.js <turns> <dir>`: the soak (bench/soak.ts) with the child's heap
 * written to <dir> (SIGUSR2, `--heapsnapshot-signal`) after the first and the last sample:
 * what a long session's child holds more of, for chrome://inspect's comparison view.
 */
const turns = Number(process.argv[2] ?? 200);
const dir = process.argv[3] ?? ".";
const server = await startBenchServer();
const child = await childStreamer(CHAT_COMPLETIONS, server, {
  contextWindow: Math.round((turns / 4) * TOKENS_PER_TURN),
  permissions: "full_access",
  command: [process.execPath, "--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`, CHILD_BIN, "stdio"],
});
const snapshot = async () => {
  const before = readdirSync(dir).length;
  process.kill(child.proc.pid as number, "SIGUSR2");
  while (readdirSync(dir).length === before) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 3000));
};
try {
  const every = turns / 4;
  await soak(server, child, child.box, {
    turns,
    every,
    onSample: (s) => {
      console.log(`turn ${s.turn}: RSS ${s.rssMb.toFixed(1)} MB`);
      if (s.turn === every) process.kill(child.proc.pid as number, "SIGUSR2");
    },
  });
  await snapshot();
} finally {
  await child.close();
  await server.close();
}

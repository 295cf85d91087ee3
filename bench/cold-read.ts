import { coldReadBench } from "./verdicts.bench.js";

/**
 * The verdict bench's cold-read rows alone (the byte scanner against the JSON.parse path), for
 * a quick look without the rest of that bench: `node dist/bench/cold-read.js [scale]`. Prints
 * the rows as JSON lines; docs/benchmarks.md is left as it is.
 */
const scale = Number(process.argv[2] ?? "1");
for (const row of await coldReadBench(scale)) process.stdout.write(`${JSON.stringify(row)}\n`);

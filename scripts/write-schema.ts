import { writeFileSync } from "node:fs";
import { buildProtocolSchema } from "../src/protocol/json-schema.js";

const target = process.argv[2] ?? "docs/protocol.schema.json";
writeFileSync(target, `${JSON.stringify(buildProtocolSchema(), null, 2)}\n`);
console.error(`wrote ${target}`);

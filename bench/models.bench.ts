import { readFileSync } from "node:fs";
import { request } from "undici";
import { nextId, sandbox } from "../src/conformance/harness.js";
import { startReady } from "../test/helpers/child.js";
import { json, openAiList, startServer } from "../test/models/fake-server.js";
import { cacheDoc, cacheFile, writeConfig, writeJson } from "../test/models/fixtures.js";
import { type Bench, median } from "./report.js";

const MODELS = 2000;
const ROUNDS = 20;

/** Catalog reads over a full-size cache, and a refresh, each against a baseline in the same run. */
const bench: Bench = {
  title: "Models: catalog snapshot and refresh",
  about: `
A fresh \`model.catalog.status\` (no cursor) rereads and hashes every provider's cache file
each time; what it checked before it takes over only for the very same bytes: the last verdict
on a cache (its parse and schema check) by the SHA-256 of its bytes, and the last snapshot's
choices when the new snapshot has the same revision (same caches, settings and refresh epoch).
The baseline reads and \`JSON.parse\`s the same 2000-entry cache file in the bench's process,
alternating with the catalog reads. Before the reuse, the profile showed the read spending most
of its time in the cache's schema check and in collections (the 2000 parsed entries and their
choices outliving the child's small young generation, src/boot/heap-flags.ts): 19.9 ms, about
7 times the parse. What is left: the round trip, the file's read and hash, the providers'
statuses and the first page's (100 choices) result check and write.`,
  async run() {
    const ids = Array.from({ length: MODELS }, (_, i) => `demo-${i}`);
    const server = await startServer((_req, res) => json(res, 200, openAiList(ids)));
    const box = sandbox("mc-bench-");
    const baseUrl = `${server.url}/v1`;
    const identity = { type: "openai-compatible", base_url: baseUrl };
    writeConfig(box, {
      providers: { demo: { ...identity, api_key_env: "DEMO_KEY" } },
      enabled_models: ids.map((id) => `demo/${id}`),
      models_dev_url: `${server.url}/nothing`,
    });
    const models = ids.map((id) => ({ id, name: `Model ${id}`, efforts: ["low", "high"] }));
    writeJson(cacheFile(box, "demo"), cacheDoc("demo", identity, models));
    const child = await startReady(box, ["model.catalog.status", "model.refresh"], {
      env: { DEMO_KEY: "k" },
    });
    try {
      const time = async (f: () => Promise<unknown>) => {
        const samples: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const start = process.hrtime.bigint();
          await f();
          samples.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
        return median(samples);
      };
      const status = await time(() => child.request("status", {}, nextId("b")));
      // Alternating with the catalog reads, so that machine noise hits both alike.
      const reads: number[] = [];
      const parses: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        let start = process.hrtime.bigint();
        await child.call("model.catalog.status", {});
        reads.push(Number(process.hrtime.bigint() - start) / 1e6);
        start = process.hrtime.bigint();
        JSON.parse(readFileSync(cacheFile(box, "demo"), "utf8"));
        parses.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      const catalog = median(reads);
      const fetchOnly = await time(async () => {
        const res = await request(`${baseUrl}/models`);
        await res.body.text();
      });
      const refresh = await time(() => child.call("model.refresh", { provider: "demo" }));
      return [
        {
          name: `fresh model.catalog.status, ${MODELS}-entry cache (median of ${ROUNDS})`,
          figure: catalog,
          baseline: median(parses),
          unit: "ms",
          baselineName: "read + JSON.parse of the same cache file in the bench's process",
          note: `lower is better; target at most 3 (status round trip on the same child ${status.toFixed(2)} ms)`,
        },
        {
          name: `model.refresh of ${MODELS} models from loopback (median of ${ROUNDS})`,
          figure: refresh,
          baseline: fetchOnly,
          unit: "ms",
          baselineName: "plain undici GET of the same list",
          note: "lower is better; includes validation, fsync'd atomic write and rescan",
        },
      ];
    } finally {
      await child.close();
      await server.close();
      box.cleanup();
    }
  },
};

export default bench;

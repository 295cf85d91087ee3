// Bundles the backend child (`mc-agent stdio`) into one ES module, dist/child/stdio.js, with the
// record worker beside it (the parser finds it as "./record-worker.js" next to itself, bundled or
// not). Why: a frontend spawns the child once per workspace, and loading its 161 separate
// modules (66 of ours, 95 of zod's) was most of its start: 125-140 ms from spawn to the
// initialize result instead of 180-260 (docs/benchmarks.md). undici stays outside: it is
// imported lazily, on the first refresh.
import { build } from "esbuild";

await build({
  bundle: true,
  platform: "node",
  format: "esm",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  target: "node20",
  external: ["undici"],
  legalComments: "none",
  logLevel: "warning",
  entryPoints: {
    stdio: "dist/src/server/stdio.js",
    // Loaded by bin/mc-agent.js before the child itself: see src/server/heap-flags.ts.
    "heap-flags": "dist/src/server/heap-flags.js",
    "record-worker": "dist/src/sessions/record-worker.js",
    "search-worker": "dist/src/agent/tools/search-worker.js",
  },
  outdir: "dist/child",
});

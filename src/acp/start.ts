import { refreshCodeCacheAfterStart } from "../boot/code-cache-refresh.js";
import { tuneHeapForChild } from "../boot/heap-flags.js";
import { runAcp } from "./main.js";
import type { AcpHandover } from "./starter.js";

/**
 * `mc-agent acp` on Node 20: the entry of dist/child/acp.cjs, the ACP agent as one CommonJS
 * script that src/main.ts compiles with V8's code cache (src/boot/code-cache.ts), as the stdio
 * child's. Without it every editor's start parsed and compiled the 1.8 MB of ES modules the
 * agent loads (most of its start: docs/benchmarks.md, "Start-ups a frontend really makes").
 * The heap's flags are set once the script has loaded (V8 keys the cache by its flags, as the
 * child's: heap-flags.ts), and the cache's entry is made again once with the start's code in it.
 */
export function startAcp(handedOver: string | null, handover?: AcpHandover): void {
  tuneHeapForChild();
  runAcp(handedOver, handover);
  refreshCodeCacheAfterStart();
}

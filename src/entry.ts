/**
 * The process entry, bundled into dist/child/entry.cjs (scripts/bundle.js), which
 * bin/mc-agent.js requires: it takes the credentials the launcher handed over on fd 3 and picks
 * what this process is. The two starts a frontend or an editor makes, exactly `mc-agent stdio`
 * and `mc-agent acp`, go from here to their starters (src/boot/starter.ts, src/acp/starter.ts)
 * and their bundles under dist/child, all CommonJS: Node never sets up its ES module loader
 * before the first answer, about a fifth of a bare `node -e ""` start (docs/benchmarks.md,
 * "Targets of issue 44"). Everything else (the terminal frontend, a backend command with more
 * words) is src/main.ts's, an ES module imported here. So this module imports nothing of ours
 * but types, and only node: modules a bare CommonJS start has loaded anyway.
 * test/boot/entry-paths.test.ts holds each path to it.
 */
import { closeSync, fstatSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AcpHandover } from "./acp/starter.js";

/** dist/child: this module's bundle sits beside the starters and bundles it loads. */
const CHILD_DIR = __dirname;
/** CommonJS files beside this one's bundle. */
const requireBeside = createRequire(__filename);

/** A file of dist/child (or beside it) as a URL, for `import()`. */
const childUrl = (...path: string[]) => pathToFileURL(join(CHILD_DIR, ...path)).href;

/**
 * Runs the process for `argv` (the words after `mc-agent`). A backend keeps running until
 * shutdown or until its frontend closes stdin; the CLI's exit code becomes the process's.
 */
export function runEntry(argv: string[]): void {
  const handedOver = takeHandedOver();
  if (argv.length === 1 && argv[0] === "stdio") return startStdio(handedOver);
  if (argv.length === 1 && argv[0] === "acp") return startAcp(handedOver);
  // A failure rejects as the ES entry's top-level await did: Node prints it and exits 1.
  void import(childUrl("..", "src", "main.js")).then(async (entry: typeof import("./main.js")) => {
    const code = await entry.main(argv, handedOver);
    if (code >= 0) process.exitCode = code;
  });
}

/**
 * The launcher's fd 3, read whole and closed (so that no command inherits it), or null. The
 * variable is removed whatever it says, so no child of ours believes it has such an fd.
 */
function takeHandedOver(): string | null {
  const fd = process.env.MC_AGENT_SECRETS_FD;
  delete process.env.MC_AGENT_SECRETS_FD;
  if (fd !== "3") return null;
  try {
    const stat = fstatSync(3);
    // A pipe (dash), a socket (the SDK) or an unlinked temporary file (bash's here-documents).
    if (!stat.isFIFO() && !stat.isSocket() && !stat.isFile()) return null;
    return readFileSync(3, "utf8");
  } catch {
    return null;
  } finally {
    try {
      closeSync(3);
    } catch {}
  }
}

/**
 * The child, through the starter (src/boot/starter.ts), which answers a plain `initialize`
 * before the child has loaded and then calls this loader.
 */
function startStdio(handedOver: string | null): void {
  const starter: typeof import("./boot/starter.js") = requireBeside("./starter.cjs");
  // The credentials too: the starter finds out what an initialize negotiating `turn` names with
  // the child's environment (src/server/turn-facts.ts).
  starter.startChild(handedOver, async () => {
    // runStdio sets the heap's flags first (src/boot/heap-flags.ts), once the bundle has loaded.
    // Node 20: the child as one script compiled with V8's code cache (src/boot/code-cache.ts);
    // null on a Node with its own compile cache, or when there is no cache to use.
    const codeCache: typeof import("./boot/code-cache.js") = requireBeside("./code-cache.cjs");
    const child = codeCache.loadCachedChild(join(CHILD_DIR, "stdio.cjs"));
    if (child !== null) return (handover) => child.runStdio(handedOver, handover);
    // Node 22.1 and later: the bundle's compiled code from a per-version cache (compile-cache.ts).
    const compileCache: typeof import("./boot/compile-cache.js") = await import(
      childUrl("compile-cache.js")
    );
    compileCache.enableChildCompileCache();
    const stdio: typeof import("./server/stdio.js") = await import(childUrl("stdio.js"));
    return (handover) => stdio.runStdio(handedOver, handover);
  });
}

/** What dist/child/acp.cjs exports (src/acp/start.ts), with the starter's handover. */
interface AcpBundle {
  startAcp: (handedOver: string | null, handover?: AcpHandover) => void;
}

/**
 * The ACP agent, through its starter (src/acp/starter.ts), which answers an editor's first
 * `initialize` before the agent has loaded and then calls this loader: the agent's bundle, with
 * the same heap settings and caches as the child, on Node 20 one script compiled with V8's code
 * cache (src/acp/start.ts), elsewhere the ES bundle through Node's compile cache.
 */
function startAcp(handedOver: string | null): void {
  const starter: typeof import("./acp/starter.js") = requireBeside("./acp-starter.cjs");
  starter.startAcpAgent(handedOver, async () => {
    const codeCache: typeof import("./boot/code-cache.js") = requireBeside("./code-cache.cjs");
    const cached = codeCache.loadCachedChild<AcpBundle>(join(CHILD_DIR, "acp.cjs"));
    if (cached !== null) return (handover) => cached.startAcp(handedOver, handover);
    const heapFlags: typeof import("./boot/heap-flags.js") = await import(
      childUrl("heap-flags.js")
    );
    heapFlags.tuneHeapForChild();
    const compileCache: typeof import("./boot/compile-cache.js") = await import(
      childUrl("compile-cache.js")
    );
    compileCache.enableChildCompileCache();
    const acp: typeof import("./acp/main.js") = await import(childUrl("acp.js"));
    return (handover) => acp.runAcp(handedOver, handover);
  });
}

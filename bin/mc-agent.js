#!/usr/bin/env node
// `mc-agent stdio` (the backend child, spawned once per workspace) goes straight to its one-file
// bundle, skipping the terminal frontend's modules; everything else goes through the CLI.
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === "stdio") {
  // Before the child's modules load: the heap keeps the young generation's size it has now.
  const { tuneHeapForChild } = await import("../dist/child/heap-flags.js");
  tuneHeapForChild();
  const { runStdio } = await import("../dist/child/stdio.js");
  runStdio();
} else {
  const { main } = await import("../dist/src/cli/main.js");
  const code = await main(args);
  if (code >= 0) process.exitCode = code;
}

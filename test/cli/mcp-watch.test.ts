import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpWatch } from "../../src/cli/mcp-watch.js";
import type { McpServerStatus } from "../../src/client/index.js";

const status = (name: string, state: McpServerStatus["state"], tools = 0): McpServerStatus => ({
  name,
  transport: "stdio",
  state,
  tools,
  error: state === "failed" ? "startup_timeout" : null,
});

/** How `mc-agent mcp` joins one mcp.status answer with the mcp.changed it reads. */
describe("CLI: the MCP watch", () => {
  it("a server's newest mcp.changed is its state, read before or after the answer", () => {
    const watch = new McpWatch();
    watch.onChanged(status("a", "ready", 3)); // read before the answer (it equals its entry)
    const answer = [status("a", "ready", 3), status("b", "starting"), status("c", "disabled")];
    watch.onChanged(status("b", "ready", 1));
    watch.onChanged(status("b", "failed")); // ready, then exited: the newest counts
    assert.deepEqual(watch.current(answer), [
      status("a", "ready", 3),
      status("b", "failed"),
      status("c", "disabled"),
    ]);
  });

  it("settle returns once the last server still starting has settled", async () => {
    const watch = new McpWatch();
    const answer = [status("a", "starting"), status("b", "starting")];
    const settled = watch.settle(answer, new AbortController().signal, 60_000);
    setTimeout(() => watch.onChanged(status("a", "ready", 2)), 10);
    setTimeout(() => watch.onChanged(status("b", "failed")), 20);
    assert.deepEqual(await settled, {
      servers: [status("a", "ready", 2), status("b", "failed")],
      stopped: null,
    });
  });

  it("nothing starting: settle returns at once; an abort stops the wait as interrupted", async () => {
    const watch = new McpWatch();
    const signal = new AbortController().signal;
    assert.equal((await watch.settle([status("a", "ready")], signal, 0)).stopped, null);
    const controller = new AbortController();
    const waiting = watch.settle([status("b", "starting")], controller.signal, 60_000);
    controller.abort();
    assert.deepEqual(await waiting, { servers: [status("b", "starting")], stopped: "interrupted" });
  });

  it("the bound: none by then is `bound`; a change within it ends the wait", async () => {
    const watch = new McpWatch();
    const signal = new AbortController().signal;
    const answer = [status("a", "starting")];
    assert.equal((await watch.settle(answer, signal, 50)).stopped, "bound");
    const late = watch.settle(answer, signal, 200);
    watch.onChanged(status("a", "ready", 1));
    assert.deepEqual(await late, { servers: [status("a", "ready", 1)], stopped: null });
  });
});

import type { McpServerStatus } from "../../client/index.js";
import type { Command } from "../command.js";
import { connect, interruptible } from "../connect.js";
import { mcpLines, mcpSummary, NO_MCP_SERVERS } from "../mcp-lines.js";
import { MCP_STARTUP_MAX_MS, MCP_WAIT_GRACE_MS, McpWatch, type Settled } from "../mcp-watch.js";
import type { Terminal } from "../terminal.js";

/** Without a terminal, a note says what is waited for once the wait has lasted this long. */
const QUIET_WAIT_MS = 2_000;

export const mcpCommand: Command = {
  spec: {
    usage: "mc-agent mcp [--json] [--no-wait]",
    summary:
      "Show each configured MCP server (MC_HOME/config.json): transport, state, tool count and error code.",
    help: [
      "Options:",
      '  --json     Print the mcp.status result ({"servers": [...]}) as JSON',
      "  --no-wait  Show the servers as they are now; do not wait for those still starting",
      "  -h, --help",
      "",
      "Starts a backend child, which starts every enabled server, and waits until none is still",
      "starting (each is ready or failed within its startup_timeout_ms). Ctrl-C stops waiting",
      "and shows the servers as they are (exit 130). Exit 0 when every server is ready or",
      "disabled (none configured included), 1 when any failed.",
    ].join("\n"),
    options: { json: { type: "boolean" }, "no-wait": { type: "boolean" } },
  },
  async run(args, term) {
    const watch = new McpWatch();
    const client = await connect(term, ["mcp"], { onMcpChanged: watch.onChanged });
    try {
      const answer = await client.mcpStatus();
      const settled: Settled =
        args.values["no-wait"] === true
          ? { servers: watch.current(answer), stopped: null }
          : await interruptible(term, (signal) => waitFor(term, watch, answer, signal));
      return report(term, settled, args.values.json === true);
    } finally {
      await client.close();
    }
  },
};

async function waitFor(
  term: Terminal,
  watch: McpWatch,
  answer: McpServerStatus[],
  signal: AbortSignal,
): Promise<Settled> {
  const starting = () => watch.current(answer).filter((s) => s.state === "starting");
  if (starting().length === 0) return { servers: watch.current(answer), stopped: null };
  const what = () => {
    const names = starting().map((s) => s.name);
    return `Waiting for ${names.length === 1 ? "1 MCP server" : `${names.length} MCP servers`} to start: ${names.join(", ")} (Ctrl-C stops waiting)`;
  };
  let shown = what();
  term.startSpinner(shown);
  // The live line names the servers still starting: it changes as each one settles.
  const refresh = term.live
    ? setInterval(() => {
        if (what() === shown) return;
        shown = what();
        term.startSpinner(shown);
      }, 250)
    : null;
  const quiet = term.live
    ? null
    : setTimeout(() => term.note(`mc-agent: ${what()}.`), QUIET_WAIT_MS);
  try {
    return await watch.settle(answer, signal, MCP_STARTUP_MAX_MS + MCP_WAIT_GRACE_MS);
  } finally {
    if (refresh) clearInterval(refresh);
    if (quiet) clearTimeout(quiet);
    term.stopSpinner();
  }
}

function report(term: Terminal, settled: Settled, json: boolean): number {
  const { servers, stopped } = settled;
  if (json) term.line(JSON.stringify({ servers }, null, 2));
  else if (servers.length === 0) term.line(NO_MCP_SERVERS);
  else {
    for (const line of mcpLines(term, servers)) term.line(line);
    term.line(mcpSummary(servers));
  }
  if (stopped === "interrupted") {
    term.note("mc-agent: interrupted; stopped waiting for the servers still starting.");
    // As exec's and refresh's Ctrl-C: 130 (128 + SIGINT).
    return 130;
  }
  if (stopped === "bound")
    term.note(
      `mc-agent: a server is still starting after ${(MCP_STARTUP_MAX_MS + MCP_WAIT_GRACE_MS) / 1000} s, longer than any startup_timeout_ms allows; the backend did not end its start.`,
    );
  const failed = servers.some((s) => s.state === "failed");
  return failed || stopped === "bound" ? 1 : 0;
}

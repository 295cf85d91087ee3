import { Agent, request } from "node:http";
import { createInterface } from "node:readline";

/**
 * The turn benchmarks' baseline: the barest SSE relay Node can run. For each stdin line
 * `{"url": ...}` it POSTs to the loopback server with node:http, splits the streamed body into
 * lines, parses each `data:` payload (as any reader of the stream must) and writes it to stdout
 * as one NDJSON line, then `{"end":true}` when the body ends. No validation, no events of its
 * own, no history: what is left of the child's work is transport and stdout.
 */
const agent = new Agent({ keepAlive: true });
const lines = createInterface({ input: process.stdin });

lines.on("line", (line) => {
  const { url } = JSON.parse(line) as { url: string };
  const req = request(
    url,
    { method: "POST", agent, headers: { "content-type": "application/json" } },
    (res) => {
      res.setEncoding("utf8");
      let buffered = "";
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let lf = buffered.indexOf("\n");
        while (lf !== -1) {
          relay(buffered.slice(0, lf));
          buffered = buffered.slice(lf + 1);
          lf = buffered.indexOf("\n");
        }
      });
      res.on("end", () => process.stdout.write('{"end":true}\n'));
    },
  );
  req.end("{}");
});

function relay(line: string): void {
  if (!line.startsWith("data:")) return;
  const payload = line.slice(5).trim();
  if (payload === "[DONE]") return;
  JSON.parse(payload);
  process.stdout.write(`${payload}\n`);
}

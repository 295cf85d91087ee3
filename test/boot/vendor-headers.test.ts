import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../src/conformance/harness.js";

/**
 * The provider SDKs' vendor files (dist/child/vendor/, scripts/bundle.js) build a request's
 * headers with the vendored undici's `Headers`, not the global one: Node defines that global by
 * loading its own copy of undici, 30-70 ms of a fresh child's first model call. Seen in a fresh
 * Node process, as the child's first model call runs them: each SDK lists models and posts a
 * JSON body to a loopback server through the vendored undici's fetch (the SDKs check a body
 * against `FormData` too), and Node's own undici is never loaded.
 */
const VENDOR = join(PACKAGE_ROOT, "dist", "child", "vendor");

const SCRIPT = `
const http = require("node:http");
const undici = require(${JSON.stringify(join(VENDOR, "undici.cjs"))});
const OpenAI = require(${JSON.stringify(join(VENDOR, "openai.cjs"))}).default;
const Anthropic = require(${JSON.stringify(join(VENDOR, "anthropic-ai-sdk.cjs"))}).default;
const seen = [];
const server = http.createServer((request, response) => {
  seen.push(request.headers["x-probe"]);
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify({ object: "list", data: [], has_more: false, first_id: null, last_id: null }));
});
server.listen(0, "127.0.0.1", async () => {
  const base = "http://127.0.0.1:" + server.address().port;
  const bounds = { apiKey: "k", fetch: undici.fetch, maxRetries: 0, defaultHeaders: { "x-probe": "sent" } };
  const openai = new OpenAI({ ...bounds, baseURL: base + "/v1" });
  const anthropic = new Anthropic({ ...bounds, baseURL: base });
  await openai.models.list();
  await openai.embeddings.create({ model: "m", input: "x" });
  await anthropic.models.list();
  await anthropic.messages.create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "x" }] });
  server.close();
  const nodeUndici = process.moduleLoadList.filter((name) => name.includes("internal/deps/undici"));
  console.log(JSON.stringify({ seen, nodeUndici }));
});
`;

test("the SDKs' requests are built and sent without loading Node's own undici", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", SCRIPT], {
    timeout: 60_000,
  });
  const { seen, nodeUndici } = JSON.parse(stdout) as { seen: string[]; nodeUndici: string[] };
  // Each request's headers reached the server as built (a list and a JSON body each).
  assert.deepEqual(seen, ["sent", "sent", "sent", "sent"]);
  assert.deepEqual(nodeUndici, []);
});

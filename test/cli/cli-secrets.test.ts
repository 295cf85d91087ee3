/**
 * The CLI run as a command (its sh launcher moves the key to fd 3) still hands the key on to
 * its child (the SDK moves it to the child's fd 3 in turn): the provider is called with it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { promisify } from "node:util";
import { CHILD_BIN, sandbox } from "../helpers/child.js";
import { writeProviderSettings } from "../helpers/real-home.js";

const run = promisify(execFile);

test("mc-agent refresh as a command: the key travels CLI -> child over fd 3", async () => {
  const box = sandbox("mc-cli-secrets-");
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { "content-type": "application/json" });
    const list = {
      object: "list",
      data: [{ id: "m1", object: "model", created: 1, owned_by: "t" }],
    };
    res.end(req.url === "/v1/models" ? JSON.stringify(list) : "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    writeProviderSettings(box.home, "p", url, ["p/m1"]);
    const env = {
      PATH: process.env.PATH,
      HOME: box.home,
      MC_HOME: box.home,
      TEST_PROVIDER_KEY: "sk-cli-key-via-fd",
      OPENAI_API_KEY: "sk-standard-unused",
    };
    const result = await run(CHILD_BIN, ["refresh", "p"], { cwd: box.workspace, env });
    assert.ok(!`${result.stdout}${result.stderr}`.includes("sk-cli-key-via-fd"));
    assert.ok(seen.includes("Bearer sk-cli-key-via-fd"), `the provider saw ${seen.join(", ")}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    box.cleanup();
  }
});

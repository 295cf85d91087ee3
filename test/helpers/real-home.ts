import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { AgentClient, type Capability, isRemote } from "../../src/client/index.js";

/** Histories in the documented store format (docs/store.md) for the real child's tests. */
export function writeHistory(
  home: string,
  id: string,
  cwd: string | null,
  title = `Title ${id}`,
): void {
  const sessions = join(home, "sessions");
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const at = "2026-11-29T10:00:00.000Z";
  const where = cwd ? { cwd } : {};
  const records = [
    { type: "session_meta", ts: at, ...where, id },
    { type: "title", ts: at, ...where, title },
  ];
  writeFileSync(
    join(sessions, `${id}.jsonl`),
    records.map((r) => `${JSON.stringify(r)}\n`).join(""),
  );
}

/** Settings naming one custom OpenAI-compatible provider at `url` with its key variable. */
export function writeProviderSettings(
  home: string,
  provider: string,
  url: string,
  enabled: string[],
): void {
  const settings = {
    providers: {
      [provider]: {
        type: "openai-compatible",
        base_url: `${url}/v1`,
        api_key_env: "TEST_PROVIDER_KEY",
      },
    },
    enabled_models: enabled,
    models_dev_url: `${url}/models-dev/api.json`,
  };
  writeFileSync(join(home, "config.json"), JSON.stringify(settings));
}

/**
 * A loopback provider speaking the OpenAI models wire format. `stall` holds every request
 * open (for cancellation), `status` answers with that HTTP status, otherwise it lists the
 * given models.
 */
export async function loopbackProvider(options: {
  models: string[];
  stall?: boolean;
  status?: number;
}) {
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (options.stall) return void held.push(res);
    res.writeHead(options.status ?? 200, { "content-type": "application/json" });
    if (req.url === "/v1/models")
      return res.end(
        JSON.stringify({
          object: "list",
          data: options.models.map((id) => ({ id, object: "model", created: 1, owned_by: "t" })),
        }),
      );
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** How many requests a stalling provider holds: the refresh has reached it. */
    held: () => held.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether this build's real child offers every capability (the domain may not have landed). */
export async function realChildOffers(
  cwd: string,
  home: string,
  capabilities: Capability[],
): Promise<boolean> {
  try {
    const client = await AgentClient.spawn({
      cwd,
      env: { PATH: process.env.PATH, MC_HOME: home, HOME: home },
      capabilities,
    });
    await client.close();
    return true;
  } catch (error) {
    if (isRemote(error, "unsupported_capability")) return false;
    throw error;
  }
}

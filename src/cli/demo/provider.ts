import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerChat } from "./demo-model.js";

export const DEMO_KEY = "demo-key-not-a-secret";

/**
 * A local OpenAI-compatible provider on 127.0.0.1 for the demo: `GET /v1/models` (bearer key
 * required) lists demo-1 and demo-2, a models.dev-shaped document enriches them, and
 * `POST /v1/chat/completions` streams the scripted demo model (demo-model.ts), so the demo
 * never leaves the machine.
 */
export interface DemoProvider {
  url: string;
  /** How many requests the provider answered (the demo shows that only refresh asks it). */
  requests: () => number;
  close: () => Promise<void>;
}

const MODELS = {
  object: "list",
  data: [
    { id: "demo-1", object: "model", created: 1_764_400_000, owned_by: "demo" },
    { id: "demo-2", object: "model", created: 1_764_400_000, owned_by: "demo" },
  ],
};

const MODELS_DEV = {
  demo: {
    id: "demo",
    name: "Demo",
    models: {
      "demo-1": {
        id: "demo-1",
        name: "Demo 1",
        reasoning: true,
        limit: { context: 128_000, output: 8192 },
      },
      "demo-2": {
        id: "demo-2",
        name: "Demo 2",
        reasoning: false,
        limit: { context: 32_000, output: 4096 },
      },
    },
  },
};

export async function startDemoProvider(): Promise<DemoProvider> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count += 1;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const authorized = req.headers.authorization === `Bearer ${DEMO_KEY}`;
    if (req.method === "GET" && req.url === "/v1/models") {
      if (!authorized) return send(401, { error: { message: "invalid api key" } });
      return send(200, MODELS);
    }
    if (req.method === "POST" && req.url === "/v1/chat/completions") {
      if (!authorized) return send(401, { error: { message: "invalid api key" } });
      answerChat(req, res).catch(() => res.destroy());
      return;
    }
    if (req.method === "GET" && req.url === "/models-dev/api.json") return send(200, MODELS_DEV);
    send(404, { error: { message: "not found" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Route = (req: Seen, res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 that records requests and answers through `route`. */
export interface FakeServer {
  url: string;
  seen: Seen[];
  route: Route;
  close(): Promise<void>;
}

export async function startServer(route: Route): Promise<FakeServer> {
  const sockets = new Set<import("node:net").Socket>();
  const fake: FakeServer = {
    url: "",
    seen: [],
    route,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      fake.seen.push(seen);
      fake.route(seen, res);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** An OpenAI-style `GET /models` list. */
export function openAiList(ids: string[]) {
  return {
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 1, owned_by: "test" })),
  };
}

/** A port with nothing listening (bound, then closed). */
export async function closedPort(): Promise<string> {
  const s = await startServer(() => {});
  await s.close();
  return s.url;
}

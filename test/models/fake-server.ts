import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

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

/**
 * A TCP listener that never accepts: a separate node process listens with a backlog of 1 and
 * then blocks its only thread, so the kernel's accept queue fills and stays full. The test's own
 * filler connections take the queue; after that the kernel drops every SYN, so a client's
 * connect hangs (it is neither refused nor answered) until the client's connect bound.
 */
export interface SilentListener {
  url: string;
  close(): Promise<void>;
}

const BLOCKED_LISTENER = `
const s = require("node:net").createServer();
s.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
  process.stdout.write(s.address().port + "\\n", () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
});`;

export async function startSilentListener(): Promise<SilentListener> {
  const proc = spawn(process.execPath, ["-e", BLOCKED_LISTENER], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  const port = await withTimeout(
    new Promise<number>((resolve) =>
      proc.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    ),
    5000,
    "listener port",
  );
  const fillers: Socket[] = [];
  const close = async () => {
    for (const s of fillers) s.destroy();
    proc.kill("SIGKILL");
    await exited;
  };
  // Fill the accept queue: connect until one connect stays unanswered.
  for (let i = 0; i < 16; i += 1) {
    const socket = connect(port, "127.0.0.1");
    fillers.push(socket);
    const connected = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 500);
      socket.once("connect", () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.once("error", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!connected) return { url: `http://127.0.0.1:${port}`, close };
  }
  await close();
  throw new Error("the accept queue never filled");
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Real HTTP servers on 127.0.0.1 for cases that make the child talk to providers: they speak
 * whatever the case's route answers (the providers' real wire formats), record every request,
 * and can stall, stall mid-body or be released later, so faults happen at known moments.
 */
export interface SeenRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Route = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface Loopback {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: SeenRequest[];
  /** Resolves once `count` requests to `path` (query ignored) have arrived. */
  requestsTo(path: string, count: number, timeoutMs?: number): Promise<void>;
  /** How many requests went to `path` so far. */
  countOf(path: string): number;
  close(): Promise<void>;
}

export async function startLoopback(route: Route): Promise<Loopback> {
  const requests: SeenRequest[] = [];
  const waiters: { path: string; count: number; resolve: () => void }[] = [];
  const countOf = (path: string) => requests.filter((r) => pathOf(r) === path).length;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen: SeenRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(seen);
      for (const w of waiters.filter((w) => countOf(w.path) >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      Promise.resolve(route(seen, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    countOf,
    requestsTo(path, count, timeoutMs = 10_000) {
      if (countOf(path) >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${count} request(s) to ${path} did not arrive in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          path,
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function pathOf(request: SeenRequest): string {
  return request.url.split("?")[0] as string;
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

/** Headers and the first part of a body, then nothing: a provider that stalls mid-body. */
export function stallMidBody(response: ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.write(body.slice(0, Math.floor(body.length / 2)));
}

/** A port on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A gate a route can wait on: the case opens it when the fault has been observed. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

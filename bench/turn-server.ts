import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * The turn benchmarks' loopback model server. Each request gets the stream its planner returns
 * (one SSE text per event, in a real wire format) and the moment its first byte went out, on
 * this process's clock (`process.hrtime`), is kept: the bench process reads the child's (or the
 * relay's) output on the same clock, so first byte to first delta is one subtraction.
 *
 * A stream is written in two parts: `head` (everything up to and including the first text
 * delta, in one write: the first byte) and, once `gate` resolves, `rest`, each event as its own
 * write, waiting for drain as a real server does. Holding the rest back keeps the latency
 * samples free of the stream's own load.
 */
export interface PlannedStream {
  head: string[];
  rest: string[];
  gate?: Promise<void>;
}

export interface SeenCall {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: the planner reads the wire body freely.
  body: any;
  /** The request body's length in bytes (drives the usage a planner reports). */
  bytes: number;
}

export type Planner = (call: SeenCall) => PlannedStream;

export interface BenchServer {
  /** `http://127.0.0.1:<port>` (no path: each format adds its own). */
  url: string;
  /** Sets how the next requests are answered. */
  plan(planner: Planner): void;
  /** Resolves with the first-byte time of the next stream to start. */
  nextFirstByte(): Promise<bigint>;
  close(): Promise<void>;
}

export async function startBenchServer(): Promise<BenchServer> {
  let planner: Planner = () => {
    throw new Error("no plan");
  };
  let firstByteWaiters: ((at: bigint) => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void collect(req).then(async (call) => {
      const stream = planner(call);
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      const at = process.hrtime.bigint();
      res.write(stream.head.join(""));
      const waiters = firstByteWaiters;
      firstByteWaiters = [];
      for (const resolve of waiters) resolve(at);
      if (stream.gate) await stream.gate;
      await writeAll(res, stream.rest);
      res.end();
    });
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan: (next) => {
      planner = next;
    },
    nextFirstByte: () => new Promise((resolve) => firstByteWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function collect(req: IncomingMessage): Promise<SeenCall> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  let body: unknown = null;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {}
  return { url: req.url ?? "", body, bytes: raw.length };
}

/** Writes each event as its own write, waiting for drain as a real server does. */
export async function writeAll(res: ServerResponse, events: string[]): Promise<void> {
  for (const event of events) {
    if (res.destroyed) return;
    if (!res.write(event)) await new Promise((resolve) => res.once("drain", resolve));
  }
}

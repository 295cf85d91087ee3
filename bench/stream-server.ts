import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { replyPieces } from "./turn-measure.js";
import { writeAll } from "./turn-server.js";

/**
 * A loopback model server in a process of its own, for the status rows of the turn bench:
 * every POST is answered with the Chat Completions stream of `argv[2]` deltas, written event by
 * event with drain waits as bench/turn-server does. In the bench's own process, the server's
 * writes (thousands a stream, before its first drain) held that process's loop, and with it the
 * status round trips being timed: tens of milliseconds of the bench's, not the child's. It
 * prints `{"url": ...}` once listening.
 */
const count = Number(process.argv[2] ?? 150_000);
const planned = CHAT_COMPLETIONS.stream(replyPieces(count));
const head = planned.head.join("");

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    res.write(head);
    void writeAll(res, planned.rest).then(() => res.end());
  });
});
server.on("connection", (socket) => socket.setNoDelay(true));
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

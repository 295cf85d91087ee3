import { type ChatServer, text } from "../fixtures/chat-completions-server.js";

/** The models the loopback stand-in lists, in its order. */
const MODELS = ["qwen2.5-coder:latest", "llama3.2:3b"];

/** Like Ollama (and every OpenAI-compatible server): GET /v1/models, then streamed chats. */
export function serveLikeOllama(server: ChatServer): void {
  server.otherwise(async (exchange) => {
    if (exchange.request.url.endsWith("/v1/models")) {
      exchange.res.writeHead(200, { "content-type": "application/json" });
      exchange.res.end(
        JSON.stringify({ object: "list", data: MODELS.map((id) => ({ id, object: "model" })) }),
      );
      return;
    }
    if (exchange.request.method === "GET") {
      exchange.res.writeHead(404).end();
      return;
    }
    await text("Hello from the loopback provider.")(exchange);
  });
}

/**
 * The tool calls the black-box turn tests have their loopback model make: a `shell` command
 * and a `write_file`, each with its call id.
 */
import type { CallSpec } from "../fixtures/chat-completions-server.js";

export const shellCall = (command: string, id: string): CallSpec => ({
  name: "shell",
  input: { command },
  id,
});

export const writeCall = (path: string, content: string, id: string): CallSpec => ({
  name: "write_file",
  input: { path, content },
  id,
});

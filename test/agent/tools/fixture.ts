import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { TOOLS } from "../../../src/agent/tools/index.js";
import { credentialVariableNames } from "../../../src/agent/tools/shell-env.js";
import {
  type PlannedCall,
  type ToolContext,
  ToolError,
  type ToolName,
  type ToolResult,
} from "../../../src/agent/tools/tool.js";
import { TURN_EXTENSION } from "../../../src/protocol/schemas/turns.js";

/** A real temp folder as the canonical workspace, beside an `outside` folder, both removed after. */
export function tempWorkspace(t: TestContext): { workspace: string; outside: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mc-tools-")));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, "workspace");
  const outside = join(root, "outside");
  mkdirSync(workspace);
  mkdirSync(outside);
  return { workspace, outside };
}

export function put(root: string, path: string, content: string | Buffer): string {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

export interface Streamed {
  stream: "stdout" | "stderr";
  text: string;
}

export function context(
  workspace: string,
  overrides: Partial<ToolContext> & { streamed?: Streamed[] } = {},
): ToolContext {
  const streamed = overrides.streamed ?? [];
  return {
    workspace,
    signal: new AbortController().signal,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    credentialVariables: credentialVariableNames([]),
    limits: {
      tool_output_bytes: TURN_EXTENSION.tool_output_bytes,
      tool_stream_bytes: TURN_EXTENSION.tool_stream_bytes,
      shell_timeout_ms: TURN_EXTENSION.shell_timeout_ms,
    },
    async onOutput(stream, text) {
      streamed.push({ stream, text });
    },
    ...overrides,
  };
}

export function plan(name: ToolName, input: unknown, ctx: ToolContext): Promise<PlannedCall> {
  return TOOLS[name].plan(input, ctx);
}

/** Plans and executes one call, as the engine does once it is allowed. */
export async function call(name: ToolName, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  return (await plan(name, input, ctx)).execute(ctx);
}

/** The ToolError a call ends in (at planning or execution); fails if it succeeds. */
export async function toolError(name: ToolName, input: unknown, ctx: ToolContext): Promise<string> {
  try {
    await call(name, input, ctx);
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${String(error)}`);
    return error.message;
  }
  assert.fail(`${name} ${JSON.stringify(input)} succeeded`);
}

/** Every await of these tests: generous, since the machine is shared. */
export function within<T>(promise: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

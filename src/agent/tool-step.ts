import { type Permissions, UNKNOWN_TOOL_BYTES } from "../protocol/schemas/turns.js";
import { headChars, splitUtf8 } from "../protocol/text-cut.js";
import { showHidden } from "../protocol/visible-text.js";
import { parseJson } from "../protocol/well-formed.js";
import type { TurnRecordBody } from "../sessions/records/turn-records.js";
import { settledOrAbandoned } from "./abort-bound.js";
import type { ApprovalBroker } from "./approvals.js";
import { hookDeniedOutput, withPostToolUse } from "./hooks/tool-hooks.js";
import type { TurnHooks } from "./hooks/turn-hooks.js";
import { MCP_SEARCH, MCP_TOOL_NAME } from "./mcp-tools/names.js";
import type { ToolCallRequest } from "./model-call.js";
import { needsApproval } from "./permissions.js";
import type { RuleBook, SessionRules } from "./rules/rule-book.js";
import { offerFor, subjectOf } from "./rules/rule-match.js";
import { TOOLS } from "./tools/index.js";
import {
  type PlannedCall,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolName,
  type ToolResult,
} from "./tools/tool.js";
import type { TurnEvents } from "./turn-events.js";

const DENIED_OUTPUT = "denied by the user";
/** What the model is told of a call a deny rule refused, never asked about. */
export const RULE_DENIED_OUTPUT =
  "denied by an approval rule of the user (not asked); do not retry it, ask the user instead";
const INTERRUPTED_OUTPUT = "The tool call was interrupted by the user.";

interface ToolStepDeps {
  offered: ReadonlyMap<string, Tool>;
  permissions: Permissions;
  /** The workspace's rules and this attachment's (rules/rule-book.ts). */
  rules: { book: RuleBook; session: SessionRules };
  approvals: ApprovalBroker;
  events: TurnEvents;
  record: (body: TurnRecordBody, sync?: boolean) => Promise<void>;
  toolContext: Omit<ToolContext, "onOutput">;
  newItemId: () => string;
  /** The turn's hooks: `PreToolUse`, `PostToolUse`, `Notification` (docs/hooks.md). */
  hooks?: TurnHooks;
}

interface ToolStepResult {
  call_id: string;
  output: string;
  is_error: boolean;
  status: "completed" | "failed" | "denied" | "interrupted";
}

/**
 * One tool call from the model: validate, plan, announce, ask when the permissions say so,
 * execute, report, record. Every failure of the call itself goes back to the model as its
 * result; only a failed history append escapes (as the writer's error).
 */
export async function runToolCall(
  call: ToolCallRequest,
  deps: ToolStepDeps,
): Promise<ToolStepResult> {
  const item_id = deps.newItemId();
  const input = parseArguments(call.arguments);
  const tool = deps.offered.get(call.name);
  await deps.record({ type: "tool_call", item_id, call_id: call.call_id, tool: call.name, input });
  const known = knownName(call.name, deps.offered);
  const settle = async (
    result: Omit<ToolStepResult, "call_id">,
    done: Partial<ToolResult> = {},
  ) => {
    await deps.events.toolDone({
      type: "tool_done",
      item_id,
      status: result.status,
      summary: done.summary ?? result.output,
      exit_code: done.exit_code ?? null,
      diff: done.diff || null,
    });
    await deps.record({
      type: "tool_result",
      item_id,
      call_id: call.call_id,
      status: result.status,
      output: result.output,
      ...(done.exit_code !== undefined ? { exit_code: done.exit_code } : {}),
    });
    return { call_id: call.call_id, ...result };
  };
  const fail = (output: string) => settle({ output, is_error: true, status: "failed" });

  // A tool we do not have is still shown under the model's name, so the user sees it was tried.
  const shown = known ?? shownToolName(call.name);
  const announce = (title: string, sandboxed?: boolean) =>
    deps.events.toolCall({
      type: "tool_call",
      item_id,
      tool: shown,
      title,
      input,
      ...(sandboxed !== undefined ? { sandboxed } : {}),
    });
  if (!known) {
    await announce(`Use ${shown}`);
    return fail(`Unknown tool "${safeName(call.name)}".`);
  }
  if (!tool) {
    await announce(`Use ${known}`);
    return fail(
      Object.hasOwn(TOOLS, known)
        ? `The tool ${known} is not available under the current permissions.`
        : `The tool ${known} is not available: its MCP server is not ready, or the current permissions do not offer it.`,
    );
  }
  if (!isJson(call.arguments)) {
    // Said plainly: the schema's complaint about a wrapped text would only confuse the model.
    await announce(`Use ${known}`);
    return fail(MALFORMED_ARGUMENTS);
  }
  const planned = await plan(tool, input, deps);
  if (planned.ok === true) await announce(planned.call.title, planned.call.sandboxed);
  else await announce(`Use ${known}`);
  if (planned.ok === "abandoned") return settle(INTERRUPTED_RESULT);
  if (!planned.ok) return fail(planned.error);
  const hooked = await deps.hooks?.preToolUse(known, input, call.call_id);
  if (deps.toolContext.signal.aborted) return settle(INTERRUPTED_RESULT);
  if (hooked?.denied)
    return settle(
      { output: hookDeniedOutput(hooked.denied), is_error: true, status: "denied" },
      { summary: "denied by a hook" },
    );
  const decision = await approve(planned.call, tool, item_id, deps, hooked?.permission ?? null);
  if (decision === "deny")
    return settle({ output: DENIED_OUTPUT, is_error: true, status: "denied" });
  if (decision === "rule_denied")
    return settle(
      { output: RULE_DENIED_OUTPUT, is_error: true, status: "denied" },
      { summary: "denied by a rule" },
    );
  if (decision === "cancelled") return settle(INTERRUPTED_RESULT);
  const result = await withPostToolUse(await execute(planned.call, item_id, deps), deps.hooks, {
    tool: known,
    input,
    callId: call.call_id,
    signal: deps.toolContext.signal,
  });
  return settle(
    { output: result.output, is_error: result.status !== "completed", status: result.status },
    result,
  );
}

const INTERRUPTED_RESULT = {
  output: INTERRUPTED_OUTPUT,
  is_error: true,
  status: "interrupted",
} as const;

/** The result of a call given up after the interrupt. */
const ABANDONED: ToolResult = {
  status: "interrupted",
  output: INTERRUPTED_OUTPUT,
  summary: "interrupted",
  exit_code: null,
  diff: null,
};

const MALFORMED_ARGUMENTS = "invalid input: the arguments are not valid JSON";

/**
 * The model's arguments as recorded and as the context replays them: the parsed JSON, or the
 * start of a text that is not JSON. The engine's context and the records use this one reading,
 * so the next turn shows the model the same call it saw in this one.
 */
export function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    // A lone surrogate escape ("\ud83c") in the model's JSON becomes U+FFFD here, where the
    // model's input enters: the tool, the record and the event all see the same well-formed text.
    return parseJson(text);
  } catch {
    return { invalid_json: headChars(text, 256) };
  }
}

function isJson(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

type Planned = { ok: true; call: PlannedCall } | { ok: false; error: string } | { ok: "abandoned" };

/** Planning reads files too (an edit's diff): an interrupt stops waiting for it (abort-bound.ts). */
async function plan(tool: Tool, input: unknown, deps: ToolStepDeps): Promise<Planned> {
  try {
    const planning = tool.plan(input, withOutput(deps, null));
    const bounded = await settledOrAbandoned(planning, deps.toolContext.signal);
    return bounded.settled ? { ok: true, call: bounded.value } : { ok: "abandoned" };
  } catch (error) {
    return { ok: false, error: toolErrorText(error) };
  }
}

async function approve(
  call: PlannedCall,
  tool: Tool,
  item_id: string,
  deps: ToolStepDeps,
  /** A `PreToolUse` hook's `allow` or `ask` (docs/hooks.md, "Decisions"). */
  hook: "allow" | "ask" | null,
): Promise<"allow" | "deny" | "rule_denied" | "cancelled"> {
  const request = call.approval;
  if (!request) return "allow";
  const subject = subjectOf(request);
  // `"sandbox": false` always asks, but for an allow_session given to an escalation before.
  const context = { escalation: call.sandboxed === false };
  const session = deps.rules.session;
  // A deny rule refuses at every level, without a question; an allow rule spares one.
  const verdict = await deps.rules.book.verdict(session, subject, context);
  if (verdict?.effect === "deny") return "rule_denied";
  // A hook's allow spares the question, but never a deny rule's doubt nor an escalation's.
  if (hook === "allow" && verdict?.effect !== "unsure" && !context.escalation) {
    if (tool.kind !== "read") session.noteUnseenChange();
    return "allow";
  }
  // A deny rule may match what an unreadable command runs: asked even where nothing asks.
  if (
    hook !== "ask" &&
    verdict?.effect !== "unsure" &&
    !needsApproval(deps.permissions, tool.kind, call.sandboxed === true)
  ) {
    // What runs unasked may change the workspace behind the user's back: a code runner's old
    // allow rule stops sparing questions (docs/tools.md, "Escalations and code runners").
    if (tool.kind !== "read" && deps.permissions !== "read_only") session.noteUnseenChange();
    return "allow";
  }
  if (hook !== "ask" && verdict?.effect === "allow") {
    // A command a rule allows is the user's own; an edit or MCP call it allows is unseen.
    if (tool.kind !== "command") session.noteUnseenChange();
    return "allow";
  }
  const approval_id = deps.approvals.newId();
  const rule = offerFor(subject);
  await deps.events.approvalRequested({
    type: "approval_requested",
    approval_id,
    item_id,
    kind: request.kind,
    // Shown as it is: invisible and reordering characters escaped (protocol/visible-text.ts).
    title: showHidden(call.title),
    command: request.command === null ? null : showHidden(request.command),
    path: request.path,
    diff: request.diff,
    truncated: false,
    rule,
  });
  // `Notification` hooks run while the approval waits; the call goes on once both are done.
  const notified = deps.hooks?.notification(call.title);
  const answer = await deps.approvals.wait(approval_id, deps.toolContext.signal, {
    rule,
    path: request.path,
  });
  await notified;
  const { decision } = answer;
  await deps.events.emit({ type: "approval_resolved", approval_id, decision });
  if (
    answer.rule !== null &&
    decision !== "cancelled" &&
    decision !== "allow_once" &&
    decision !== "deny"
  )
    await deps.rules.book.keep(session, decision, answer.rule, context);
  if (decision === "cancelled") return "cancelled";
  return decision === "deny" || decision === "deny_always" ? "deny" : "allow";
}

async function execute(
  call: PlannedCall,
  item_id: string,
  deps: ToolStepDeps,
): Promise<ToolResult> {
  // Approved (or needing no approval): the frontend may show the call running from here on (an
  // ACP editor's `in_progress`, tool-host.ts). Awaited as an event is; never fails the call.
  const started = deps.toolContext.host?.callStarted?.(item_id);
  if (started)
    await settledOrAbandoned(
      started.catch(() => {}),
      deps.toolContext.signal,
    );
  try {
    // A call still running `TOOL_SETTLE_MS` after the interrupt is given up (abort-bound.ts).
    const running = call.execute(withOutput(deps, item_id));
    const bounded = await settledOrAbandoned(running, deps.toolContext.signal);
    if (bounded.settled) return bounded.value;
    return ABANDONED;
  } catch (error) {
    const output = toolErrorText(error);
    const status = deps.toolContext.signal.aborted ? "interrupted" : "failed";
    return { status, output, summary: output, exit_code: null, diff: null };
  }
}

function withOutput(deps: ToolStepDeps, item_id: string | null): ToolContext {
  return {
    ...deps.toolContext,
    itemId: item_id,
    onOutput: (stream, text) =>
      item_id === null ? Promise.resolve() : deps.events.output(item_id, stream, text),
  };
}

function toolErrorText(error: unknown): string {
  if (error instanceof ToolError) return error.message;
  // Anything else is our bug or an OS error: the model gets a generic line, never a host path.
  return "The tool failed unexpectedly.";
}

/**
 * The name a call's events carry: a built-in's, or an offered or well-formed MCP one (a call of
 * an MCP tool whose server went away still gets its events and a tool error). Null: unknown.
 */
function knownName(name: string, offered: ReadonlyMap<string, Tool>): ToolName | null {
  if (Object.hasOwn(TOOLS, name)) return name as ToolName;
  if (offered.has(name) || name === MCP_SEARCH || MCP_TOOL_NAME.test(name)) return name as ToolName;
  return null;
}

/**
 * A name the model gave a tool we do not have, as `tool_call` shows it: control characters
 * escaped (`\u0007`), at most UNKNOWN_TOOL_BYTES bytes (cut at a character), "(no name)" for none.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export function shownToolName(name: string): string {
  // Escaping only lengthens: 64 code units of the name are more than the bound keeps.
  const escaped = name
    .slice(0, UNKNOWN_TOOL_BYTES)
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const cut = splitUtf8(escaped, UNKNOWN_TOOL_BYTES)[0] ?? "";
  return cut === "" ? "(no name)" : cut;
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, "?").slice(0, 64);
}

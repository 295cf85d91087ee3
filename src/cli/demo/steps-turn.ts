import type { SessionEvent, TurnEventBody, TurnEventParams } from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import { type DemoContext, heading, offers, say } from "./context.js";

/**
 * Step 5: a real turn with the model selected in step 4, on a new lazy session: the events as
 * they arrive (consecutive deltas folded into one line), what they mean, the result, then the
 * saved history read back with session.history.
 */
export async function runDemoTurn(ctx: DemoContext, selected: boolean): Promise<void> {
  const { term, client } = ctx;
  heading(term, 5, "Run a turn");
  say(
    term,
    "session.create gives a lazy handle: nothing is written until its first turn saves it.\nturn.start runs the agent loop in the child; its events stream as turn.event notifications.",
  );
  if (!offers(ctx, ["session.create", "session.history", "turn"], "the turn")) return;
  if (!selected) {
    term.line(term.yellow("  No model was selected in step 4, so there is no turn to run."));
    return;
  }
  const { session } = await client.call("session.create", {});
  term.line(`  session.create → ${session.id} (saved: ${session.saved})`);
  const input = "What is in this folder?";
  say(term, `The user asks: "${input}". The demo model first lists the folder (a read-only tool).`);
  const folder = new DeltaFolder(term);
  const result = await client.turn(input, { onEvent: (event) => folder.add(event) });
  folder.flush();
  say(
    term,
    [
      "turn_started: the model, effort, permissions; created_session when this turn saved the handle.",
      "message_delta: reply text as it streams; message_done: the whole text (the truth).",
      "tool_call / tool_done: a tool the model asked for, and its outcome (list_dir needs no",
      "approval; edits and commands under `ask` send approval_requested, answered by turn.approve).",
      "usage: tokens after each model call. Then the result, the one answer of turn.start.",
    ].join("\n"),
  );
  const u = result.usage;
  term.line(
    `  turn.start → ${result.status} (${result.stop_reason}), ${result.steps} model calls, ${u.input_tokens} in / ${u.output_tokens} out tokens`,
  );
  await showSavedHistory(ctx, session.id);
}

async function showSavedHistory(ctx: DemoContext, id: string): Promise<void> {
  const { term, client } = ctx;
  const status = await client.call("status", {});
  term.line(
    `  status.attachment → ${status.attachment?.session_id} (saved: ${status.attachment?.saved})`,
  );
  say(term, "The frontend reads the saved records back: deltas are not saved, the records are.");
  for await (const page of client.history(id))
    for (const event of page) term.line(`    ${describeRecord(event)}`);
}

function describeRecord(event: SessionEvent): string {
  const field = (key: string) => (typeof event[key] === "string" ? (event[key] as string) : "");
  switch (event.type) {
    case "user_message":
    case "assistant_message":
      return `${event.type}: ${JSON.stringify(field("text"))}`;
    case "tool_call":
      return `tool_call: ${field("tool")} ${JSON.stringify(event.input)}`;
    case "tool_result":
      return `tool_result: ${field("status")}`;
    case "turn_end":
      return `turn_end: ${field("status")} (${field("stop_reason")})`;
    case "turn_start":
      return `turn_start: ${field("model")} · ${field("permissions")}`;
    default:
      return event.type;
  }
}

/** Prints one line per event, folding a run of deltas of one item into a single line. */
class DeltaFolder {
  private run: { type: string; item: string; from: number; to: number; text: string } | null = null;

  constructor(private readonly term: Terminal) {}

  add({ seq, event }: TurnEventParams): void {
    if (event.type === "message_delta" || event.type === "reasoning_delta") {
      if (this.run && this.run.type === event.type && this.run.item === event.item_id) {
        this.run.to = seq;
        this.run.text += event.text;
        return;
      }
      this.flush();
      this.run = { type: event.type, item: event.item_id, from: seq, to: seq, text: event.text };
      return;
    }
    this.flush();
    this.term.line(`  ${this.term.dim(`seq ${seq}`)}  ${gist(event)}`);
  }

  flush(): void {
    if (!this.run) return;
    const { type, from, to, text } = this.run;
    const count = to - from + 1;
    this.term.line(
      `  ${this.term.dim(`seq ${from}-${to}`)}  ${type} ×${count}: ${JSON.stringify(text)}`,
    );
    this.run = null;
  }
}

function gist(event: TurnEventBody): string {
  switch (event.type) {
    case "turn_started":
      return `turn_started: ${event.model}${event.effort ? ` (${event.effort})` : ""}, ${event.permissions}, created_session ${event.created_session}`;
    case "message_done":
      return `message_done: ${JSON.stringify(event.text)}`;
    case "tool_call":
      return `tool_call: ${event.tool} ${JSON.stringify(event.input)} — "${event.title}"`;
    case "tool_done":
      return `tool_done: ${event.status}, ${event.summary}`;
    case "usage":
      return `usage: ${event.input_tokens} in / ${event.output_tokens} out tokens`;
    default:
      return event.type;
  }
}

import type { AgentClient, Capability } from "../../client/index.js";
import type { Terminal } from "../terminal.js";
import type { DemoHome } from "./home.js";
import type { DemoProvider } from "./provider.js";

/** Everything a walkthrough step needs. */
export interface DemoContext {
  term: Terminal;
  client: AgentClient;
  fixture: DemoHome;
  provider: DemoProvider;
  /** Capabilities this backend child did not offer: their steps say so and are skipped. */
  missing: Capability[];
}

/** How many steps the walkthrough has. */
const STEPS = 6;

export function heading(term: Terminal, step: number, title: string): void {
  term.line();
  term.line(term.bold(`Step ${step} of ${STEPS} · ${title}`));
}

/** Commentary: what the frontend does and why, indented and dimmed. */
export function say(term: Terminal, text: string): void {
  for (const line of text.split("\n")) term.line(term.dim(`  ${line}`));
}

/** True when every capability is offered; otherwise says clearly which are not, and why it matters. */
export function offers(ctx: DemoContext, needed: Capability[], what: string): boolean {
  const absent = needed.filter((c) => !ctx.client.has(c));
  if (absent.length === 0) return true;
  ctx.term.line(
    ctx.term.yellow(
      `  This backend child does not offer ${absent.join(", ")} yet (refused at initialize with unsupported_capability), so ${what} is skipped. Nothing is faked.`,
    ),
  );
  return false;
}

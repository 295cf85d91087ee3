import fc from "fast-check";
import { type CallSpec, call } from "../../src/conformance/chat-server.js";

/**
 * Generators for the turn protocol fuzzer: a scripted turn (the model's replies: tool calls of
 * edits, shell commands and reads, then text) run under a permission mode, with client actions
 * (`turn.approve` with any decision or a bogus ID, `turn.interrupt`, `status`, `shutdown`, stdin
 * EOF) fired at random moments: after the n-th event of the turn.
 */
export type Decision = "allow_once" | "allow_session" | "deny";
export type Action =
  | { kind: "interrupt" }
  | { kind: "status" }
  | { kind: "bogus-approve"; decision: Decision }
  | { kind: "shutdown" }
  | { kind: "eof" };

export interface ProtocolCase {
  permissions: "ask" | "accept_edits" | "full_access" | "read_only";
  /** The model's replies, one per model call: tool calls (parallel when several). */
  steps: CallSpec[][];
  /** What each approval_requested gets, in turn (cycled); "ignore" leaves it waiting. */
  decisions: (Decision | "ignore")[];
  /** Client actions, each after `afterEvents` events of the turn were seen. */
  actions: { afterEvents: number; action: Action }[];
  /** Also interrupt at every `usage` event (the last comes as the turn ends). */
  interruptOnUsage: boolean;
}

const decision = fc.constantFrom<Decision>("allow_once", "allow_session", "deny");

/**
 * Commands of issue 17's defects 4 and 5: an emoji across character 80 of the title (cut at a
 * code point, never into a lone surrogate), and 11,000 control characters (an
 * `approval_requested` bounded as a whole frame by `event_bytes`). The second one's `tool_call`
 * record is 66 KB of JSON, over a `session.history` page: it comes as a stub, read back whole
 * through `session.record` (history-records.ts).
 */
const defectCommands = [
  `echo ${"é".repeat(72)}🎉🎉🎉🎉`,
  `echo ${"é".repeat(73)}🎉🎉🎉🎉`,
  `printf '%s' '${"\u0001".repeat(11_000)}'`,
];

const toolCall: fc.Arbitrary<CallSpec> = fc.oneof(
  fc
    .tuple(fc.nat({ max: 3 }), fc.string({ maxLength: 40 }))
    .map(([n, content]) => call("write_file", { path: `w/f${n}.txt`, content })),
  fc
    .tuple(fc.constantFrom("alpha", "beta", "nope"), fc.string({ maxLength: 20 }))
    .map(([old, next]) => call("edit_file", { path: "a.txt", old_text: old, new_text: next })),
  fc
    .constantFrom(
      "echo one",
      "sleep 0.2; echo two",
      "for i in 1 2 3; do echo $i; sleep 0.05; done",
      "printf 'é🎉'; exit 3",
      "echo err >&2",
      `echo ${"é".repeat(70)}`,
      ...defectCommands,
    )
    .map((command) => call("shell", { command })),
  fc.constant(call("read_file", { path: "a.txt" })),
);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "interrupt" as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: "status" as const }) },
  { weight: 2, arbitrary: decision.map((d) => ({ kind: "bogus-approve" as const, decision: d })) },
  { weight: 1, arbitrary: fc.constant({ kind: "shutdown" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "eof" as const }) },
);

export const protocolCase: fc.Arbitrary<ProtocolCase> = fc.record({
  permissions: fc.constantFrom("ask", "ask", "ask", "accept_edits", "full_access", "read_only"),
  steps: fc.array(fc.array(toolCall, { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  }),
  decisions: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: decision },
      { weight: 1, arbitrary: fc.constant("ignore" as const) },
    ),
    { minLength: 1, maxLength: 6 },
  ),
  actions: fc.array(fc.record({ afterEvents: fc.nat({ max: 24 }), action }), { maxLength: 5 }),
  interruptOnUsage: fc.nat({ max: 4 }).map((n) => n === 0),
});

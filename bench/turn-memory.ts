import { answerEvents, call } from "../test/fixtures/chat-completions-server.js";
import { peakRssMb } from "./bench-support.js";
import type { BenchRow } from "./report.js";
import { CHAT_COMPLETIONS } from "./turn-formats.js";
import { deltasPerSecond } from "./turn-measure.js";
import type { BenchServer, Planner, SeenCall } from "./turn-server.js";
import { childStreamer } from "./turn-world.js";

/**
 * Issue 13's memory figure: the child's peak RSS over one turn that streams 50 MiB, 10 MiB of
 * message deltas and 40 MiB of shell output. Ten steps, each 1 MiB of deltas (4096 of 256
 * characters) and a `shell` call printing 4 MiB of lines; then a closing answer. The model's
 * context_window is 272,000 tokens, as a current large model's: 1 MiB of reply is about 262,000
 * tokens, so most steps start by compacting (a summary call the server answers too). That is
 * what bounds a real turn's context: what a model is sent has to fit its window.
 */
const STEPS = 10;
const STEP_PIECES = 4096;
const PIECE = "x".repeat(255).concat(" ");
const SHELL_BYTES = 4 * 1_048_576;
const COMMAND = `yes 'a line of tool output, as a build or a test run prints them by the thousand' | head -c ${SHELL_BYTES}`;
const CONTEXT_WINDOW = 272_000;

export async function turnMemory(server: BenchServer): Promise<BenchRow[]> {
  const child = await childStreamer(CHAT_COMPLETIONS, server, {
    contextWindow: CONTEXT_WINDOW,
    permissions: "full_access",
    timeoutMs: 600_000,
  });
  try {
    const idle = peakRssMb(child.proc.pid);
    // A short turn first: the model SDK loaded and the code warm, as in any session.
    await deltasPerSecond(server, CHAT_COMPLETIONS, child, 100);
    const before = peakRssMb(child.proc.pid);
    const calls = { steps: 0, summaries: 0 };
    server.plan(bigTurn(calls));
    await child.begin();
    let deltaBytes = 0;
    let outputBytes = 0;
    for (const frame of child.proc.frames) {
      const event = (frame as unknown as { params?: { event?: { type: string; text?: string } } })
        .params?.event;
      if (event?.type === "message_delta") deltaBytes += event.text?.length ?? 0;
      if (event?.type === "tool_output_delta") outputBytes += event.text?.length ?? 0;
    }
    const peak = peakRssMb(child.proc.pid);
    const result = child.lastResult();
    if (calls.steps !== STEPS + 1 || result?.steps !== STEPS + 1)
      throw new Error(`the memory turn ran ${calls.steps} steps, not ${STEPS + 1}`);
    child.forget();
    const mib = (bytes: number) => (bytes / 1_048_576).toFixed(1);
    return [
      {
        name: `child peak RSS over one turn of ${mib(STEPS * (STEP_PIECES * PIECE.length + SHELL_BYTES))} MiB: ${STEPS} steps of 1 MiB of deltas and a shell call printing 4 MiB`,
        figure: peak,
        baseline: before,
        unit: "MB",
        baselineName: "the same child's peak after one short turn",
        note: `target under 100 MB (${peak < 100 ? "met" : "missed"}); ${idle.toFixed(0)} MB after initialize, before any model call; ${mib(deltaBytes)} MiB of message_delta and ${mib(outputBytes)} MiB of tool_output_delta reached the client (1 MiB a call streams); ${calls.summaries} compactions`,
      },
    ];
  } finally {
    await child.close();
  }
}

/** The model's side of the memory turn: steps with tool calls, summaries, a last answer. */
function bigTurn(calls: { steps: number; summaries: number }): Planner {
  return (seen: SeenCall) => {
    const usage = { prompt_tokens: Math.ceil(seen.bytes / 4), completion_tokens: 1000 };
    const tools = seen.body?.tools as unknown[] | undefined;
    let lines: string[];
    if (!tools || tools.length === 0) {
      // The compaction's summary call: it offers no tools.
      calls.summaries += 1;
      lines = answerEvents({ text: ["The work so far: ", "steps of output were read."], usage });
    } else {
      calls.steps += 1;
      lines =
        calls.steps <= STEPS
          ? answerEvents({
              text: Array.from({ length: STEP_PIECES }, () => PIECE),
              calls: [call("shell", { command: COMMAND }, `call_${calls.steps}`)],
              usage,
            })
          : answerEvents({ text: ["All ", "done."], usage });
    }
    return { head: lines.slice(0, 2), rest: lines.slice(2) };
  };
}

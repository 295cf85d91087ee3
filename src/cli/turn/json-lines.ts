import { z } from "zod";
import { type Infer, lazy } from "../../protocol/lazy.js";
import { TurnEventBody, TurnResult } from "../../protocol/schemas/turns.js";

/**
 * The lines of `mc-agent exec --json` (docs/cli.md, "exec", with this as its JSON Schema):
 * every line one JSON object with a `type`. Each event of the turn, as the protocol streams it
 * plus the turn's ID and the event's place (`seq`); then the result, last, with the exit code
 * the command ends with; or, for anything that kept the turn from running or from ending
 * (no model, the backend refused, a usage mistake after the options were read), one error line.
 */
const Place = lazy(() => ({ turn_id: z.string(), seq: z.number().int().min(0) }));

const EventLines = lazy(() => TurnEventBody().options.map((event) => event.extend(Place())));

const ResultLines = lazy(() =>
  TurnResult().options.map((result) =>
    result.extend({
      type: z.literal("result"),
      /** The exit code of `mc-agent exec` (docs/cli.md, "exit codes"). */
      exit_code: z.number().int(),
      /** Approvals denied because no terminal could ask (each also has its approval_resolved). */
      denied_unasked: z.number().int().min(0),
    }),
  ),
);

const ErrorLine = lazy(() =>
  z.strictObject({
    type: z.literal("error"),
    code: z.string(),
    message: z.string(),
    advice: z.string(),
    exit_code: z.number().int(),
  }),
);

export const ExecJsonLine = lazy(() => z.union([...EventLines(), ...ResultLines(), ErrorLine()]));
export type ExecJsonLine = Infer<typeof ExecJsonLine>;

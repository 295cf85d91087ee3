import { z } from "zod";
import { TURN_EXTENSION } from "../protocol/schemas/turns.js";

/**
 * Our ACP extension method for steering (docs/acp.md, "Queued prompts and steering"): ACP has
 * no steering of its own, and an extension method's name starts with `_`.
 */
export const STEER_METHOD = "_mc/steer";

/**
 * `_mc/steer` params: the session, and the text for its running prompt (1..input_bytes UTF-8
 * bytes, checked by the engine's turn.steer; the bound here only keeps the parse small).
 */
export const SteerParams = z.object({
  sessionId: z.string().max(4096),
  text: z.string().max(TURN_EXTENSION.input_bytes),
});

import { z } from "zod";
import { TURN_EXTENSION } from "../protocol/schemas/turns.js";

/** Our steering method's name, `_mc/steer`: with the initialize answer that names it. */
export { STEER_METHOD } from "./initialize-answer.js";

/**
 * `_mc/steer` params: the session, and the text for its running prompt (1..input_bytes UTF-8
 * bytes, checked by the engine's turn.steer; the bound here only keeps the parse small).
 */
export const SteerParams = z.object({
  sessionId: z.string().max(4096),
  text: z.string().max(TURN_EXTENSION.input_bytes),
});

/**
 * Talking to a running turn (docs/turns.md, "Steering and queueing"): `turn.steer` (capability
 * `turn.steer`) adds input to a running turn at its next model call boundary; `turn.start` with
 * `queue: true` (capability `turn.queue`) waits for the running turn instead of being `busy`.
 * turns.ts builds these into turn.start's params, its result and its events.
 */
import { z } from "zod";
import { lazy } from "../lazy.js";

/** The most `queue: true` turn.start requests a child holds waiting; one more is `busy`. */
export const QUEUED_TURNS = 8;

/** A steer's ID: the turn's ID and its number in the turn (`<turn_id>.s<n>`). */
export const SteerId = lazy(() => z.string().regex(/^[A-Za-z0-9._:-]{1,80}$/));

export const TurnSteerResult = lazy(() =>
  z.strictObject({ steer_id: SteerId(), state: z.literal("accepted") }),
);

/** A steer the turn accepted but ended before delivering: its input, whole, for the composer. */
export const UndeliveredSteer = lazy(() =>
  z.strictObject({ steer_id: SteerId(), input: z.string().min(1) }),
);

/**
 * `steer_applied`: the steer joined the turn's context (and its history, as a `user_message`
 * with `steer: true`) before the model call this event precedes. `text` is its input, cut to
 * fit the event bound like any event text (the history and the model get it whole).
 */
export const SteerAppliedEvent = lazy(() =>
  z.strictObject({ type: z.literal("steer_applied"), steer_id: SteerId(), text: z.string() }),
);

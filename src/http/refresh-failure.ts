import type { RefreshReason } from "../protocol/schemas/models.js";

/**
 * A catalog refresh, or a token renewal, that failed for one of model.refresh's ten reasons
 * (never carries details). The bounded exchange answers in it, so both speak the same failures.
 */
export class RefreshFailure extends Error {
  constructor(readonly reason: RefreshReason) {
    super(reason);
    this.name = "RefreshFailure";
  }
}

import type { RefreshReason } from "../protocol/schemas/models.js";

/** A refresh that failed for one of the contract's ten reasons (never carries details). */
export class RefreshFailure extends Error {
  constructor(readonly reason: RefreshReason) {
    super(reason);
    this.name = "RefreshFailure";
  }
}

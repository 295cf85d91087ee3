/**
 * A running turn's steers (docs/turns.md, "Steering and queueing"): `turn.steer` adds one on the
 * protocol loop, the engine takes every pending one at its next model call boundary, and the
 * turn's end closes the inbox and reports what it never took. Each steer is accounted for
 * exactly once: taken (applied) or returned at the close (undelivered). Every method is
 * synchronous, and frames are read only between macrotasks, so an add never interleaves with a
 * take or the close.
 */
import type { TurnRecordBody } from "../sessions/records/turn-records.js";
import type { TurnEvents } from "./turn-events.js";

export interface PendingSteer {
  steer_id: string;
  input: string;
}

export class SteerInbox {
  private pending: PendingSteer[] = [];
  private state: "waiting" | "open" | "closed" = "waiting";
  private count = 0;

  constructor(private readonly turnId: string) {}

  /** The turn was admitted and runs: steers are accepted from now on. */
  open(): void {
    if (this.state === "waiting") this.state = "open";
  }

  /** Accepts a steer; null when the turn is not running (not yet admitted, or ending). */
  add(input: string): string | null {
    if (this.state !== "open") return null;
    this.count += 1;
    const steer = { steer_id: `${this.turnId}.s${this.count}`, input };
    this.pending.push(steer);
    return steer.steer_id;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Every pending steer, in order; they are the caller's to deliver now. */
  take(): PendingSteer[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }

  /** The turn ends: nothing more is accepted; what was never taken, in order. */
  close(): PendingSteer[] {
    this.state = "closed";
    return this.take();
  }
}

/** What delivering a steer writes: its history record, its event, its context item. */
interface DeliveryTargets {
  record: (body: TurnRecordBody, sync?: boolean) => Promise<void>;
  events: TurnEvents;
  push: (text: string) => void;
}

/**
 * The engine's side of the inbox: delivers at a boundary (a `user_message` record with
 * `steer: true`, the context item, `steer_applied`), and at the end reports, in order, the
 * steers not delivered, including any a failed append left unrecorded.
 */
export class SteerDelivery {
  private unrecorded: PendingSteer[] = [];
  private readonly targets: DeliveryTargets;

  constructor(
    private readonly inbox: SteerInbox,
    record: DeliveryTargets["record"],
    events: TurnEvents,
    push: DeliveryTargets["push"],
  ) {
    this.targets = { record, events, push };
  }

  get hasPending(): boolean {
    return this.inbox.hasPending;
  }

  async deliver(): Promise<void> {
    const steers = this.inbox.take();
    for (const [index, steer] of steers.entries()) {
      try {
        await this.targets.record({ type: "user_message", text: steer.input, steer: true });
      } catch (error) {
        this.unrecorded = steers.slice(index);
        throw error;
      }
      this.targets.push(steer.input);
      await this.targets.events.steerApplied(steer.steer_id, steer.input);
    }
  }

  close(): PendingSteer[] {
    return [...this.unrecorded, ...this.inbox.close()];
  }
}

/**
 * The registry of admitted, active requests: one AbortController each, registered on admission,
 * aborted by `operation.cancel` or shutdown, removed when the terminal response is written.
 */
export interface ActiveOperation {
  id: string;
  method: string;
  controller: AbortController;
  /** Settles when the operation's terminal response has been written. */
  done: Promise<void>;
  cancellable: boolean;
}

export class OperationRegistry {
  private readonly active = new Map<string, ActiveOperation>();

  add(op: ActiveOperation): void {
    this.active.set(op.id, op);
  }

  remove(id: string): void {
    this.active.delete(id);
  }

  get(id: string): ActiveOperation | undefined {
    return this.active.get(id);
  }

  has(id: string): boolean {
    return this.active.has(id);
  }

  get size(): number {
    return this.active.size;
  }

  list(): ActiveOperation[] {
    return [...this.active.values()];
  }

  /** Aborts the request if it is active and cancellable; false otherwise. */
  cancel(id: string): boolean {
    const op = this.active.get(id);
    if (!op?.cancellable) return false;
    op.controller.abort();
    return true;
  }

  cancelAll(): void {
    for (const op of this.active.values()) op.controller.abort();
  }
}

import { randomBytes } from "node:crypto";

/**
 * Opaque, single-use, child-scoped cursors. Each cursor maps to the state needed to continue;
 * taking it removes it, so a second use finds nothing. Tokens are random, so a cursor from
 * another child (or a guessed one) is never valid here.
 */
export class CursorStore<T> {
  private readonly live = new Map<string, T>();

  /** `prefix` is a short ASCII tag; the whole cursor stays well under 64 bytes. */
  constructor(
    private readonly prefix: string,
    private readonly capacity = 64,
  ) {}

  issue(state: T): string {
    // Bounded memory: a client that never continues its cursors cannot grow this map.
    if (this.live.size >= this.capacity) {
      const oldest = this.live.keys().next().value;
      if (oldest !== undefined) this.live.delete(oldest);
    }
    const token = `${this.prefix}.${randomBytes(18).toString("base64url")}`;
    this.live.set(token, state);
    return token;
  }

  /** The cursor's state without using it up (so a refused request consumes nothing). */
  peek(cursor: string): T | undefined {
    return this.live.get(cursor);
  }

  /** Returns the cursor's state and forgets the cursor, or undefined if it is not live. */
  take(cursor: string): T | undefined {
    const state = this.live.get(cursor);
    if (state !== undefined) this.live.delete(cursor);
    return state;
  }

  clear(): void {
    this.live.clear();
  }

  get size(): number {
    return this.live.size;
  }
}

import { jsonBytes, utf8Length } from "./raw-json.js";

/**
 * The one pager: fills a page with items while both the entry bound and the byte bound of the
 * serialized result hold. Sessions, history events and catalog choices all page through it.
 */
export interface PageBounds {
  entries: number;
  bytes: number;
}

export interface PageFill<T> {
  items: T[];
  /** Why the page stopped before taking every offered item, or null if it took them all. */
  stoppedBy: "page_entries" | "page_bytes" | null;
}

/**
 * `envelopeBytes` is the serialized size of the result with an empty item array and the largest
 * cursor it may carry; each item costs its JSON length plus a separating comma (a RawJson item
 * its text's length: what the encoder writes).
 * Throws `PageOverflow` when the first item alone cannot fit an empty page.
 */
export function fillPage<T>(
  offered: Iterable<T>,
  envelopeBytes: number,
  bounds: PageBounds,
): PageFill<T> {
  const items: T[] = [];
  let used = envelopeBytes;
  for (const item of offered) {
    if (items.length >= bounds.entries) return { items, stoppedBy: "page_entries" };
    const cost = jsonBytes(item) + (items.length > 0 ? 1 : 0);
    if (used + cost > bounds.bytes) {
      if (items.length === 0) throw new PageOverflow();
      return { items, stoppedBy: "page_bytes" };
    }
    items.push(item);
    used += cost;
  }
  return { items, stoppedBy: null };
}

/** A page accumulator for producers that yield items one at a time (the discovery scan). */
export class PageBuilder<T> {
  readonly items: T[] = [];
  private used: number;

  constructor(
    private readonly envelopeBytes: number,
    private readonly bounds: PageBounds,
  ) {
    this.used = envelopeBytes;
  }

  /** Whether the item fits; adds it if so. Throws `PageOverflow` if it can never fit. */
  tryAdd(item: T): boolean {
    if (this.items.length >= this.bounds.entries) return false;
    const size = jsonBytes(item);
    const cost = size + (this.items.length > 0 ? 1 : 0);
    if (this.used + cost > this.bounds.bytes) {
      if (this.envelopeBytes + size > this.bounds.bytes) throw new PageOverflow();
      return false;
    }
    this.items.push(item);
    this.used += cost;
    return true;
  }

  get full(): boolean {
    return this.items.length >= this.bounds.entries;
  }
}

export class PageOverflow extends Error {
  constructor() {
    super("an item cannot fit an empty page");
  }
}

export { utf8Length };

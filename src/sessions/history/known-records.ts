/**
 * Where the records `session.history` stubbed are in their files, so that the first
 * `session.record` call for one need not validate and scan its history again: a history page
 * was read under a signature the first page validated, and the same signature now means the same
 * file (as for history cursors). Bounded: the oldest entry is dropped first; a miss only costs
 * the validating scan.
 */
export interface RecordPlace {
  /** File offset of the record's text (its `{`). */
  start: number;
  /** The text's UTF-8 length. */
  bytes: number;
}

const CAPACITY = 256;

export class KnownRecords {
  private readonly places = new Map<string, RecordPlace & { signature: string }>();

  learn(id: string, signature: string, index: number, place: RecordPlace): void {
    const key = `${id}\n${index}`;
    this.places.delete(key);
    if (this.places.size >= CAPACITY) {
      const oldest = this.places.keys().next().value;
      if (oldest !== undefined) this.places.delete(oldest);
    }
    this.places.set(key, { ...place, signature });
  }

  /** The place of record `index` when it was learnt under exactly this signature. */
  find(id: string, signature: string, index: number): RecordPlace | undefined {
    const place = this.places.get(`${id}\n${index}`);
    return place?.signature === signature ? place : undefined;
  }
}

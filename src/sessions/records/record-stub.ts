import { utf8Length } from "../../protocol/raw-json.js";
import type { SessionEvent } from "../../protocol/schemas/sessions.js";
import { isWellFormed, wellFormed } from "../../protocol/well-formed.js";

/**
 * What `session.history` sends in place of a record too large for any page (docs/turns.md,
 * "Records larger than a page"): a small, bounded event that says where the record is and what
 * it is, so that a UI can show a placeholder and read the record through `session.record`.
 * It is built from the record's parsed top level only (never walked deeper), on whichever
 * thread parsed the record, and it always fits a page with room to spare.
 */
export interface RecordStub {
  /** The stub's own fields, in order: type, ts, cwd?, the short scalar fields, oversize. */
  fields: SessionEvent;
  /** Bytes of JSON whitespace before the record's `{` (what the record's text leaves out). */
  lead: number;
  /** The record's text's UTF-8 length (without that whitespace). */
  bytes: number;
}

/** The stub's `type` when the record's own is too long to repeat. */
const LONG_TYPE = "oversize_record";
const TYPE_BYTES = 256;
const CWD_BYTES = 4096;
/** A copied field's serialized `"name":value`, and all of them together. */
const FIELD_BYTES = 320;
const FIELDS_BYTES = 4096;
/** Top-level members looked at (a record may have a million). */
const MEMBERS_LOOKED_AT = 64;
/** Names the stub sets itself; a record's own members of these names are not copied. */
const OWN = new Set(["type", "ts", "cwd", "oversize", "index", "bytes", "__proto__"]);

export function recordStub(event: SessionEvent, lead: number, bytes: number): RecordStub {
  const fields: SessionEvent = {
    type: utf8Length(event.type) <= TYPE_BYTES && isWellFormed(event.type) ? event.type : LONG_TYPE,
    ts: wellFormed(event.ts),
  };
  if (event.cwd !== undefined && utf8Length(event.cwd) <= CWD_BYTES)
    fields.cwd = wellFormed(event.cwd);
  let spent = 0;
  let looked = 0;
  for (const name in event) {
    if (++looked > MEMBERS_LOOKED_AT) break;
    if (OWN.has(name) || !Object.hasOwn(event, name)) continue;
    const value = (event as Record<string, unknown>)[name];
    if (!isShortScalar(value) || !isWellFormed(name)) continue;
    const cost = utf8Length(JSON.stringify(name)) + 1 + utf8Length(JSON.stringify(value)) + 1;
    if (cost > FIELD_BYTES || spent + cost > FIELDS_BYTES) continue;
    fields[name] = value;
    spent += cost;
  }
  return { fields, lead, bytes };
}

/** A value a placeholder can show: null, a boolean, a safe integer, a short well-formed string. */
function isShortScalar(value: unknown): boolean {
  if (value === null || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isSafeInteger(value);
  return typeof value === "string" && value.length <= FIELD_BYTES && isWellFormed(value);
}

/** The stub event for the record at `index` of its history, as `session.history` sends it. */
export function stubEvent(stub: RecordStub, index: number): SessionEvent {
  return { ...stub.fields, oversize: true, index, bytes: stub.bytes };
}

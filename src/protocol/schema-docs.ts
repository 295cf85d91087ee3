import type { z } from "zod";

/** The description of a named type in docs/protocol.schema.json, if it has one. */
export function describeType(id: string, _schema: z.ZodType): string | undefined {
  return TYPE_DOCS[id];
}

const TYPE_DOCS: Record<string, string> = {};

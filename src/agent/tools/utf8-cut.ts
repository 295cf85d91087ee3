/**
 * The tools' byte cuts, at UTF-8 character boundaries: the one implementation is the protocol
 * layer's text-cut.ts, which every cut of a frame or record text goes through.
 */
export { utf8Length } from "../../protocol/raw-json.js";
export { headBytes, tailBytes } from "../../protocol/text-cut.js";

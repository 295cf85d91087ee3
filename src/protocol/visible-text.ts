/**
 * Approval text shown as it is (docs/turns.md, section 4, "approval_requested"): a command or
 * title with a bidirectional override (U+202E), an isolate (U+2066..2069), a direction mark
 * (U+200E/F, U+061C) or another invisible format character could be displayed reordered or
 * hiding what runs. Each such character (Unicode category Cf, and the line and paragraph
 * separators U+2028/2029) becomes the visible text `\u{202e}` (lowercase hex, no leading
 * zeros). Pure ASCII out for them, so applying it twice changes nothing.
 */
const HIDDEN = /[\p{Cf}\u2028\u2029]/u;
const HIDDEN_ALL = /[\p{Cf}\u2028\u2029]/gu;

export function showHidden(text: string): string {
  return HIDDEN.test(text)
    ? text.replace(HIDDEN_ALL, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`)
    : text;
}

/** Whether `text` has a character showHidden would rewrite. */
export function hasHidden(text: string): boolean {
  return HIDDEN.test(text);
}

/**
 * An assistant message's Markdown as HTML for the exported page (docs/cli.md, "export"): marked
 * parses and renders it, made safe for text the model wrote, which may hold anything. Raw HTML
 * (a block or an inline tag) is shown as its text, never as markup; a link keeps its address
 * only when it is http, https, mailto or has no scheme (a `javascript:`, `data:` or `file:`
 * link shows as its text alone); an image shows as its alt text (the page loads nothing). Every
 * other element marked makes carries no attribute but a code block's language class, escaped:
 * so no script, no event handler, no URL the page would follow unasked.
 */
import { Marked } from "marked";
import { escapeHtml } from "./markdown.js";

/** A scheme at the start of a URL, as a browser finds it (control characters and spaces dropped). */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const SAFE_SCHEMES = new Set(["http", "https", "mailto"]);

/** C0 controls, space, DEL and C1 controls: what a browser drops or trims in a URL. */
function isControlOrSpace(code: number): boolean {
  return code <= 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** Whether a link to `href` may be followed from the page. */
export function safeHref(href: string): boolean {
  // A browser ignores tabs and newlines inside a URL ("java\tscript:"), and spaces around it.
  const bare = [...href].filter((c) => !isControlOrSpace(c.codePointAt(0) ?? 0)).join("");
  const scheme = SCHEME.exec(bare)?.[1];
  return scheme === undefined || SAFE_SCHEMES.has(scheme.toLowerCase());
}

const marked = new Marked({
  gfm: true,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }) {
      const inner = this.parser.parseInline(tokens);
      if (!safeHref(href)) return inner;
      const titled = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${titled} rel="noopener noreferrer">${inner}</a>`;
    },
    image({ text }) {
      return escapeHtml(text);
    },
  },
});

/** `text` (Markdown) as HTML, safe to put in the page. */
export function markdownHtml(text: string): string {
  return marked.parse(text, { async: false });
}

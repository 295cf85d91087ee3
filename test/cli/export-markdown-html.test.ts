import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { markdownHtml, safeHref } from "../../src/cli/export/markdown-html.js";

describe("export: an assistant's Markdown as safe HTML", () => {
  test("a link keeps its address only for http, https, mailto or no scheme", () => {
    for (const ok of [
      "https://a.dev/x",
      "HTTP://a.dev",
      "mailto:a@b.c",
      "src/a.ts",
      "#top",
      "?q=1",
    ])
      assert.equal(safeHref(ok), true, ok);
    for (const bad of [
      "javascript:alert(1)",
      " JavaScript:alert(1)",
      "java\tscript:alert(1)",
      "java\nscript:alert(1)",
      "\u0000javascript:alert(1)",
      "vbscript:x",
      "data:text/html,hi",
      "file:///etc/passwd",
    ])
      assert.equal(safeHref(bad), false, JSON.stringify(bad));
  });

  test("raw HTML is text, an unsafe link its text, an image its alt text", () => {
    const html = markdownHtml(
      'A <b onclick="x()">b</b>\n\n<script>x()</script>\n\n[go](javascript:x()) [ok](https://a.dev) ![alt](https://a.dev/i.png)',
    );
    assert.ok(!/<(script|img|b)\b/i.test(html), html);
    assert.ok(html.includes("&#60;b onclick=&#34;x()&#34;&#62;b&#60;/b&#62;"), html);
    assert.ok(html.includes("&#60;script&#62;x()&#60;/script&#62;"), html);
    assert.ok(
      html.includes('go <a href="https://a.dev" rel="noopener noreferrer">ok</a> alt'),
      html,
    );
  });
});

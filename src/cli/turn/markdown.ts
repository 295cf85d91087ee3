import type { Terminal } from "../terminal.js";

/** Renders one complete markdown block (a paragraph, a list, a fenced code block) for the terminal. */
export type RenderBlock = (block: string) => string;

/**
 * The markdown renderer for the reply, or null when stdout is not a terminal (a pipe or a file
 * gets the model's text exactly as it came). marked parses, marked-terminal renders: code
 * blocks indented and highlighted, lists, emphasis, links with their address. Loaded only here,
 * so `exec > file` never pays for it. Styles follow the terminal's color choice (NO_COLOR,
 * TERM=dumb): without color the structure stays (bullets, indented code), the escapes go.
 */
export async function markdownRenderer(term: Terminal): Promise<RenderBlock | null> {
  if (!term.io.out.isTTY || term.io.env.TERM === "dumb") return null;
  const [{ Marked }, { markedTerminal }, { default: chalk }] = await Promise.all([
    import("marked"),
    import("marked-terminal"),
    import("chalk"),
  ]);
  // marked-terminal styles (and skips highlighting) through chalk's shared level.
  chalk.level = term.color ? (Math.max(chalk.level, 1) as 1 | 2 | 3) : 0;
  const width = Math.max(40, Math.min(term.io.out.columns || 80, 120));
  const marked = new Marked(
    markedTerminal({
      width,
      reflowText: false,
      emoji: false,
      tab: 2,
      showSectionPrefix: true,
      // cli-table3 colors tables on its own: without color, plain borders.
      ...(term.color ? {} : { tableOptions: { style: { head: [], border: [] } } }),
    }),
  );
  // marked-terminal renders a tight list item's text token as is; its inline tokens (emphasis,
  // code, links) are parsed here instead. `false` leaves every other text to marked-terminal.
  marked.use({
    renderer: {
      text(token) {
        return "tokens" in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
  return (block) => marked.parse(block, { async: false }) as string;
}

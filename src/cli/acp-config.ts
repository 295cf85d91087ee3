/**
 * `mc-agent acp --print-config <editor>`: the editor's JSON for this installation
 * (docs/acp.md, "Editors"). The command is the launcher itself, `bin/mc-agent.js` run as a
 * program, never `node bin/mc-agent.js`: run by node, the file's sh part (which moves the
 * provider keys out of the environment onto fd 3) is skipped, so the agent's environment, and
 * every command its tools run, would hold the keys (docs/tools.md, "What a command can reach").
 */
export const EDITORS = ["zed", "jetbrains"] as const;
export type Editor = (typeof EDITORS)[number];

export function isEditor(name: string): name is Editor {
  return (EDITORS as readonly string[]).includes(name);
}

/** The settings fragment to paste: Zed's settings.json, or JetBrains' ~/.jetbrains/acp.json. */
export function editorConfig(editor: Editor, launcher: string): string {
  const entry = {
    ...(editor === "zed" ? { type: "custom" } : {}),
    command: launcher,
    args: ["acp"],
    env: {},
  };
  return `${JSON.stringify({ agent_servers: { "mc-agent": entry } }, null, 2)}\n`;
}

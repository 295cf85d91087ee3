/**
 * Where skills and commands are found (docs/skills.md), in precedence order: the workspace's
 * places before the user's (a workspace skill wins over a user skill of the same name), our own
 * folder before the compatible ones.
 */
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { CommandPlace, SkillPlace } from "../../protocol/schemas/skills.js";
import { credentialPaths } from "../../store/credentials.js";

/** What discovery needs: the canonical workspace, MC_HOME and the environment (HOME, ...). */
export interface DiscoveryInputs {
  workspace: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

export interface Place<P extends string> {
  place: P;
  scope: "workspace" | "user";
  root: string;
  /** The workspace a project place's files must stay in; null for the user's. */
  confinedTo: string | null;
}

/** The user's Claude Code and Codex folders, as their credential files place them. */
function userFolders(inputs: DiscoveryInputs) {
  const paths = credentialPaths(inputs.home, inputs.env);
  return {
    user: inputs.env.HOME || homedir(),
    claude: dirname(paths.claudeCredentials),
    codex: dirname(paths.codexAuth),
  };
}

export function skillPlaces(inputs: DiscoveryInputs): Place<SkillPlace>[] {
  const { workspace, home } = inputs;
  const user = userFolders(inputs);
  const project = (place: SkillPlace, ...parts: string[]): Place<SkillPlace> => ({
    place,
    scope: "workspace",
    root: join(workspace, ...parts),
    confinedTo: workspace,
  });
  const own = (place: SkillPlace, root: string): Place<SkillPlace> => ({
    place,
    scope: "user",
    root,
    confinedTo: null,
  });
  return [
    project(".mc/skills", ".mc", "skills"),
    project(".agents/skills", ".agents", "skills"),
    project(".claude/skills", ".claude", "skills"),
    project(".codex/skills", ".codex", "skills"),
    own("MC_HOME/skills", join(home, "skills")),
    own("~/.claude/skills", join(user.claude, "skills")),
    own("~/.codex/skills", join(user.codex, "skills")),
  ];
}

export function commandPlaces(inputs: DiscoveryInputs): Place<CommandPlace>[] {
  const { workspace, home } = inputs;
  const user = userFolders(inputs);
  return [
    {
      place: ".mc/commands",
      scope: "workspace",
      root: join(workspace, ".mc", "commands"),
      confinedTo: workspace,
    },
    {
      place: ".claude/commands",
      scope: "workspace",
      root: join(workspace, ".claude", "commands"),
      confinedTo: workspace,
    },
    { place: "MC_HOME/commands", scope: "user", root: join(home, "commands"), confinedTo: null },
    {
      place: "~/.claude/commands",
      scope: "user",
      root: join(user.claude, "commands"),
      confinedTo: null,
    },
  ];
}

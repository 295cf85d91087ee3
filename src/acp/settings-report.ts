/**
 * An invalid settings file, reported once on stderr and in the editor (docs/acp.md, "First
 * run"): its file, line and column, and what to do. The engines themselves stay quiet about it
 * (engine-face.ts), so a file is not warned about once per session.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { log } from "../process/log.js";
import { globalSettingsPath, loadSettings, projectSettingsPath } from "../store/settings.js";
import type { SettingsFault } from "../store/settings-fault.js";
import type { NextSteps } from "./next-steps.js";

/** Our code in the error's `data`, as the catalog's notice names it. */
const CONFIGURATION_INVALID = "configuration_invalid";

export class SettingsReport {
  /** What was said on stderr already: a file and where it is wrong. */
  private readonly logged = new Set<string>();

  constructor(
    private readonly home: string,
    private readonly steps: NextSteps,
  ) {}

  /**
   * The error a session's opening answers when a settings file of `cwd` is invalid (the
   * engine would ignore it and run on built-in defaults), or null when both are valid or absent.
   */
  async check(cwd: string): Promise<RequestError | null> {
    const settings = loadSettings(this.home, cwd);
    const faults: string[] = [];
    const { global, project } = settings.files;
    if (global.state === "invalid")
      faults.push(await this.where(globalSettingsPath(this.home), global.fault));
    if (project.state === "invalid")
      faults.push(await this.where(projectSettingsPath(cwd), project.fault));
    if (faults.length === 0) return null;
    for (const fault of faults) {
      if (this.logged.has(fault)) continue;
      this.logged.add(fault);
      log("warn", `${fault}; it is ignored until fixed`);
    }
    const message =
      `${faults.join("; ")}. mc-agent ignores an invalid settings file until it is fixed: ` +
      `correct it there ("${this.steps.command("doctor")}" shows the same), then start a new session.`;
    return new RequestError(-32001, message, { code: CONFIGURATION_INVALID });
  }

  private async where(path: string, fault: SettingsFault): Promise<string> {
    // jsonc-parser only for an invalid file (settings-locate.ts).
    const { locateFault } = await import("../store/settings-locate.js");
    const at = locateFault(fault);
    const position = at.line === null ? "" : ` at line ${at.line}, column ${at.column}`;
    return `${path} is invalid${position} (${at.rule ?? at.reason})`;
  }
}

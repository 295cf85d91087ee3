/** What command-scan.ts reads out of a `shell` text (shared with command-wrappers.ts). */

export interface ScannedCommand {
  /** Leading `NAME=value` assignments (and those an `env` or `sudo` wrapper sets). */
  env: string[];
  /** The program as written, then its arguments. */
  words: string[];
}

export interface CommandScan {
  commands: ScannedCommand[];
  /** Some program could not be told: a deny rule may match what runs, so the call asks. */
  unsure: boolean;
}

/** The scanner's two entry points, handed to the wrappers (no import cycle). */
export interface CommandReader {
  /** The commands of a shell text. */
  text(text: string, depth: number): CommandScan;
  /** The commands of one simple command's words (with assignments in force). */
  words(words: readonly string[], depth: number, env?: string[]): CommandScan;
}

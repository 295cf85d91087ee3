/**
 * stderr logging. Levels via MC_LOG: `error`, `warn` (default), `info`, `debug`. At the default
 * level nothing names a path, URL, credential, body or history content; `debug` may carry
 * details for local troubleshooting and must not be enabled where logs are collected.
 */
const LEVELS = ["error", "warn", "info", "debug"] as const;
type LogLevel = (typeof LEVELS)[number];

function configuredLevel(): number {
  const wanted = (process.env.MC_LOG ?? "warn").toLowerCase();
  const index = LEVELS.indexOf(wanted as LogLevel);
  return index === -1 ? 1 : index;
}

const threshold = configuredLevel();

export function log(level: LogLevel, message: string): void {
  if (LEVELS.indexOf(level) > threshold) return;
  process.stderr.write(`mc-agent ${level}: ${message}\n`);
}

export function logEnabled(level: LogLevel): boolean {
  return LEVELS.indexOf(level) <= threshold;
}

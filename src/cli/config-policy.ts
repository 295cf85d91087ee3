/**
 * The global flag every command takes: go on although a settings file is invalid. Kept apart
 * from the check itself so that main (also loaded by `mc-agent stdio`) imports nothing more.
 */
export const IGNORE_CONFIG_ERRORS = "--ignore-config-errors";

/** Set once by main from the command line (the flag is taken out before a command parses). */
export const configPolicy = { ignoreErrors: false };

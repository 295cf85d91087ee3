/**
 * The distinct nonempty cwds a history's valid records carried, in first-seen order, up to a
 * small bound. A cached verdict keeps them instead of the verdict of the cwd rule itself: the
 * rule depends on the child's workspace and on symlinks outside the history, so a later scan
 * applies it again to these strings (docs/extensions.md, "The verdict cache"). Past the bound
 * the history's verdict is simply not cached.
 */
const CWDS_KEPT = 16;
/** A longer cwd is never kept (no real path is that long): the verdict is not cached then. */
const CWD_KEPT_CHARS = 4096;

export class CwdLog {
  readonly values: string[] = [];
  /** True once a cwd could not be kept: the verdict must not be cached. */
  overflow = false;
  private last: string | null = null;

  add(cwd: string): void {
    // A history repeats one cwd record after record: one comparison for all of them.
    if (cwd === this.last || this.overflow) return;
    this.last = cwd;
    if (this.values.includes(cwd)) return;
    if (this.values.length >= CWDS_KEPT || cwd.length > CWD_KEPT_CHARS) this.overflow = true;
    else this.values.push(cwd);
  }

  /** A log in this one's state, that later adds leave this one without. */
  copy(): CwdLog {
    const log = new CwdLog();
    log.values.push(...this.values);
    log.overflow = this.overflow;
    log.last = this.last;
    return log;
  }
}

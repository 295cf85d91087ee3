/**
 * Ordered, back-pressured frame output. `Writable.write` keeps every frame in call order.
 * Producers of notifications await `write`: it resolves at once while the buffer is under the
 * high-water mark and otherwise on `drain`, so a streaming turn waits for a slow reader instead
 * of buffering without bound. The input side keeps flowing (an interrupt or status is never
 * stuck behind output): responses are bounded by admission instead (at most `active_requests`
 * in flight, each at most `frame_bytes`). Only a client that keeps sending without ever reading
 * pushes the buffer to the ceiling; then input is paused until stdout drains.
 */
export interface WriterBounds {
  /** Producers wait while more than this many bytes are buffered. */
  highWaterBytes: number;
  /** Input is paused while more than this many bytes are buffered. */
  ceilingBytes: number;
}

/**
 * One frame's worth of high water. The ceiling is four frames: a streaming turn alone stays
 * under two (high water plus one frame), so only a client that also leaves megabytes of answers
 * unread meets it; buffered frames cost about three times their bytes in memory.
 */
export const WRITER_BOUNDS: WriterBounds = {
  highWaterBytes: 1_048_576,
  ceilingBytes: 4 * 1_048_576,
};

const RESOLVED = Promise.resolve();

export class FrameWriter {
  private drained: Promise<void> | null = null;
  private release: () => void = () => {};
  private paused = false;
  private closed = false;
  private corked = false;

  constructor(
    private readonly stream: NodeJS.WritableStream & {
      readonly writableLength: number;
      cork(): void;
      uncork(): void;
    },
    /** Asked to pause (true) or resume (false) input at the ceiling. */
    private readonly onCeiling: (paused: boolean) => void,
    private readonly bounds: WriterBounds = WRITER_BOUNDS,
  ) {
    const close = () => {
      // The reader went away (EPIPE): nothing more can be delivered; nobody may wait on it.
      this.closed = true;
      this.release();
    };
    stream.on("error", close);
    stream.on("close", close);
  }

  /** Writes one frame; resolves when the buffer has room for more. */
  write(line: string): Promise<void> {
    if (this.closed) return RESOLVED;
    this.batch();
    const ok = this.stream.write(line);
    const buffered = this.stream.writableLength;
    if (buffered > this.bounds.ceilingBytes && !this.paused) {
      this.paused = true;
      this.onCeiling(true);
      void this.untilDrained(); // resumes input on drain, whoever waits
    }
    // `drain` comes only after a write reported a full buffer (`ok` false).
    if (ok || buffered <= this.bounds.highWaterBytes) return RESOLVED;
    return this.untilDrained();
  }

  /** Resolves once everything written so far has been handed to the OS (or the pipe closed). */
  flush(): Promise<void> {
    if (this.closed) return RESOLVED;
    return new Promise((resolve) => {
      this.stream.write("", () => resolve());
    });
  }

  /**
   * Frames written in one go (a streamed chunk's many deltas are all produced before the loop
   * turns) leave in one `writev` when it ends instead of one write call each: at a hundred
   * thousand deltas a second the calls were about a seventh of the child's time. `nextTick`
   * runs once the producing chain yields, so no frame waits for anything but the code already
   * running.
   */
  private batch(): void {
    if (this.corked) return;
    this.corked = true;
    this.stream.cork();
    process.nextTick(() => {
      this.corked = false;
      this.stream.uncork();
    });
  }

  private untilDrained(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const onDrain = () => this.release();
      this.release = () => {
        this.stream.off("drain", onDrain);
        this.drained = null;
        this.release = () => {};
        if (this.paused) {
          this.paused = false;
          this.onCeiling(false);
        }
        resolve();
      };
      this.stream.once("drain", onDrain);
    });
    return this.drained;
  }
}

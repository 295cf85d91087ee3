/**
 * Ordered, back-pressured frame output. `Writable.write` keeps every frame in call order.
 * Producers of notifications await `write`: it resolves at once while the buffer is under the
 * high-water mark and otherwise on `drain`, so a streaming turn waits for a slow reader instead
 * of buffering without bound. The input side keeps flowing (an interrupt or status is never
 * stuck behind output): responses are bounded by admission instead (at most `active_requests`
 * in flight, each at most `frame_bytes`). A client that keeps sending without reading gets its
 * input paused: once more than `answerBytes` of answers wait unwritten (so a flood of `status`
 * requests behind a stalled reader does only a bounded amount of work, whatever it sends), or
 * once the whole buffer passes the ceiling; input resumes when they are written.
 */
interface WriterBounds {
  /** Producers wait while more than this many bytes are buffered. */
  highWaterBytes: number;
  /** Input is paused while more than this many bytes are buffered. */
  ceilingBytes: number;
  /**
   * Input is paused while more than this many bytes of answers (results and errors, not
   * notifications) wait unwritten, and resumed once at most half as many do.
   */
  answerBytes: number;
}

/** What a frame is: an answer to a request, or a notification (which its producer awaits). */
export type FrameKind = "answer" | "event";

/**
 * A quarter frame of high water: enough to keep the pipe full at full speed (measured: no
 * throughput lost against 1 MiB), and buffered frames cost about three times their bytes in
 * memory, so it is a few MiB off a turn's peak RSS. The ceiling is four frames: a streaming turn
 * alone stays under high water plus one frame, so only a client that also leaves megabytes of
 * answers unread meets it.
 */
const WRITER_BOUNDS: WriterBounds = {
  highWaterBytes: 262_144,
  ceilingBytes: 4 * 1_048_576,
  answerBytes: 65_536,
};

/**
 * Answers are joined into one string and handed to the stream once this many UTF-16 units wait,
 * or at the end of the tick they were written in. See `writeAnswer`.
 */
export const ANSWER_BATCH_UNITS = 16_384;

const RESOLVED = Promise.resolve();

export class FrameWriter {
  private drained: Promise<void> | null = null;
  private release: () => void = () => {};
  private paused = false;
  private closed = false;
  private corked = false;
  /** Bytes (UTF-16 units) of answers written and not yet written out (`answers` included). */
  private answersPending = 0;
  /** Answers written and not yet handed to the stream, in order. */
  private answers = "";
  private answersScheduled = false;
  private readonly goneListeners: (() => void)[] = [];

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
    stream.on("error", this.gone);
    stream.on("close", this.gone);
  }

  /** The reader went away (EPIPE): nothing more can be delivered; nobody may wait on it. */
  readonly gone = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.answers = "";
    this.release();
    for (const listener of this.goneListeners) listener();
  };

  /**
   * Calls `listener` once the reader is gone (EPIPE on a write, or the stream closed): the
   * client can never be told anything again, so the child treats it as EOF (stdio.ts).
   */
  whenGone(listener: () => void): void {
    if (this.closed) listener();
    else this.goneListeners.push(listener);
  }

  /** Writes one frame; resolves when the buffer has room for more (at once once gone). */
  write(line: string, kind: FrameKind = "event"): Promise<void> {
    if (this.closed) return RESOLVED;
    if (kind === "answer") return this.writeAnswer(line);
    // Whatever was answered before this frame leaves before it.
    this.handAnswers();
    this.batch();
    const ok = this.stream.write(line);
    this.updateInput();
    return this.room(ok);
  }

  /**
   * An answer joins the ones written before it in this tick: one string, handed to the stream
   * as one write (one callback, for `answersPending`) when the tick ends or the string reaches
   * ANSWER_BATCH_UNITS. A write of its own each, with a callback each, kept every answer's
   * string, callback and buffer entry alive until the pipe took it (a writev keeps its chunks);
   * a pipelined `status` flood answers over a thousand frames per input chunk, and that was most
   * of what outlived each scavenge (docs/benchmarks.md, "The status loop's garbage"). A string
   * handed to an idle pipe is copied out of the JavaScript heap at once.
   */
  private writeAnswer(line: string): Promise<void> {
    this.answersPending += line.length;
    this.answers += line;
    if (this.answers.length >= ANSWER_BATCH_UNITS) {
      const ok = this.handAnswers();
      this.updateInput();
      return this.room(ok);
    }
    if (!this.answersScheduled) {
      this.answersScheduled = true;
      process.nextTick(this.handScheduled);
    }
    this.updateInput();
    if (this.stream.writableLength + this.answers.length <= this.bounds.highWaterBytes)
      return RESOLVED;
    // Over the mark: handed over now, so that the stream reports it full and `drain` comes.
    return this.room(this.handAnswers());
  }

  private readonly handScheduled = () => {
    this.answersScheduled = false;
    if (this.closed) return;
    this.handAnswers();
    this.updateInput();
  };

  /** Hands the joined answers to the stream; false when it then reports its buffer full. */
  private handAnswers(): boolean {
    const text = this.answers;
    if (text === "") return true;
    this.answers = "";
    const size = text.length;
    return this.stream.write(text, () => {
      this.answersPending -= size;
      this.updateInput();
    });
  }

  /** Resolves at once while the buffer has room, else on `drain` (which a full write brings). */
  private room(ok: boolean): Promise<void> {
    if (ok || this.stream.writableLength <= this.bounds.highWaterBytes) return RESOLVED;
    return this.untilDrained();
  }

  /** Resolves once everything written so far has been handed to the OS (or the pipe closed). */
  flush(): Promise<void> {
    if (this.closed) return RESOLVED;
    this.handAnswers();
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

  /** Pauses input past either bound, resumes it once both are met again. */
  private updateInput(): void {
    const buffered = this.stream.writableLength;
    if (!this.paused) {
      const overCeiling = buffered > this.bounds.ceilingBytes;
      if (!overCeiling && this.answersPending <= this.bounds.answerBytes) return;
      this.paused = true;
      this.onCeiling(true);
      if (overCeiling) void this.untilDrained(); // resumes input on drain, whoever waits
      return;
    }
    const resume =
      this.closed ||
      (buffered <= this.bounds.ceilingBytes && this.answersPending <= this.bounds.answerBytes / 2);
    if (!resume) return;
    this.paused = false;
    this.onCeiling(false);
  }

  private untilDrained(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const onDrain = () => this.release();
      this.release = () => {
        this.stream.off("drain", onDrain);
        this.drained = null;
        this.release = () => {};
        this.updateInput();
        resolve();
      };
      this.stream.once("drain", onDrain);
    });
    return this.drained;
  }
}

/**
 * Ordered, back-pressured frame output. `Writable.write` keeps order; when it reports a full
 * buffer the writer asks the input side to pause, so a client that stops reading cannot make
 * the child queue unbounded responses: no new requests are read until stdout drains.
 */
export class FrameWriter {
  private waiting = false;
  private closed = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly onPressure: (paused: boolean) => void,
  ) {
    stream.on("error", () => {
      // The reader went away (EPIPE): nothing more can be delivered.
      this.closed = true;
    });
  }

  write(line: string): void {
    if (this.closed) return;
    const ok = this.stream.write(line);
    if (!ok && !this.waiting) {
      this.waiting = true;
      this.onPressure(true);
      this.stream.once("drain", () => {
        this.waiting = false;
        this.onPressure(false);
      });
    }
  }

  /** Resolves once everything written so far has been handed to the OS (or the pipe closed). */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.stream.write("", () => resolve());
    });
  }
}

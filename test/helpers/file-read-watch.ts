import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

/** One fs.readSync of the watched file: the buffer given, the bytes read, the position asked. */
export interface WatchedRead {
  buffer: NodeJS.ArrayBufferView;
  got: number;
  position: unknown;
}

/**
 * Reads of one file counted on the real disk: fs.openSync and fs.readSync are wrapped, not
 * replaced (every call still reaches the disk), and each readSync of a descriptor opened on
 * `path` is handed to `onRead`.
 */
export class FileReadWatch {
  private readonly fds = new Set<number>();
  private readonly original = { openSync: fs.openSync, readSync: fs.readSync };

  constructor(
    private readonly path: string,
    private readonly onRead: (read: WatchedRead) => void,
  ) {}

  install(): void {
    const { openSync, readSync } = this.original;
    fs.openSync = ((...args: Parameters<typeof openSync>) => {
      const fd = openSync(...args);
      if (String(args[0]) === this.path) this.fds.add(fd);
      return fd;
    }) as typeof openSync;
    fs.readSync = ((fd: number, buffer: NodeJS.ArrayBufferView, ...rest: unknown[]) => {
      const got = (readSync as (...a: unknown[]) => number)(fd, buffer, ...rest);
      // readSync(fd, buffer, offset, length, position): the position is the third of the rest.
      if (this.fds.has(fd)) this.onRead({ buffer, got, position: rest[2] });
      return got;
    }) as typeof readSync;
    // The modules import these by name: their ES bindings follow the CommonJS exports.
    syncBuiltinESMExports();
  }

  uninstall(): void {
    fs.openSync = this.original.openSync;
    fs.readSync = this.original.readSync;
    syncBuiltinESMExports();
  }
}

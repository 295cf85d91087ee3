/**
 * A long text built from many small pieces (a reply streamed a few characters at a time), kept
 * as a few flat strings.
 *
 * `text += piece` keeps one string node per piece until something flattens the whole: a long
 * reply became a tree of hundreds of thousands of small objects that lived through every minor
 * collection into the old generation, where each major collection walked them again; those
 * pauses held status and interrupt answers back during a fast turn (docs/benchmarks.md).
 * Here a few hundred pieces at most are held as they came, then joined into one flat part.
 */
export class TextBuilder {
  private readonly parts: string[] = [];
  private pieces: string[] = [];
  private piecesLength = 0;
  /** In UTF-16 code units, as `String.length`. */
  length = 0;

  add(piece: string): void {
    if (piece === "") return;
    this.pieces.push(piece);
    this.piecesLength += piece.length;
    this.length += piece.length;
    if (this.piecesLength >= PART_UNITS || this.pieces.length >= PART_PIECES) this.seal();
  }

  toString(): string {
    this.seal();
    if (this.parts.length > 1) this.parts.splice(0, this.parts.length, this.parts.join(""));
    return this.parts[0] ?? "";
  }

  private seal(): void {
    if (this.pieces.length === 0) return;
    this.parts.push(this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join(""));
    this.pieces = [];
    this.piecesLength = 0;
  }
}

/** A part is sealed at this many code units or pieces, whichever comes first. */
const PART_UNITS = 16_384;
const PART_PIECES = 256;

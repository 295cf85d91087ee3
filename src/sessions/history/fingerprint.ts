import { type CipherGCM, createCipheriv, randomBytes } from "node:crypto";

/**
 * A keyed fingerprint of a run of bytes, for telling whether a history's bytes are the ones read
 * before (admission-memo.ts). It is GHASH, the authenticator of AES-256-GCM, over the bytes
 * given as additional data (nothing is encrypted), under a key and nonce drawn at random for each
 * FingerprintKey and kept only in this process's memory; no fingerprint ever leaves it.
 *
 * Why this and not SHA-256, which the memo used before: it is what every turn's admission spent
 * its time on as a session grew (issue 44: two SHA-256 passes over the whole history, 3 ms a
 * pass over 4 MiB here), and GHASH with the CPU's carry-less multiply runs about four times as
 * fast. Why it is as sound for this use: for any two different byte strings of at most n 16-byte
 * blocks, the chance over the random key that their fingerprints are equal is at most about
 * n / 2^128 (GHASH is almost-XOR-universal), whoever chose the strings, as long as the key is
 * unknown to them; another writer of the file never sees the key nor a fingerprint. For a 1 GiB
 * history that is 2^-102. (SHA-256's own guarantee is computational: nobody knows a collision.)
 * One key and nonce serve all of a memo's fingerprints: reusing a GCM nonce is a weakness only
 * to someone who sees the authenticators, and nobody does.
 */
/**
 * A history's bytes are read back for their fingerprint in reads of at most this size (64 KiB
 * measured fastest for it: 16 KiB reads took 1.5 times as long, 256 KiB ones as long or longer).
 */
export const FINGERPRINT_READ_BYTES = 65_536;

export class FingerprintKey {
  private readonly key: Uint8Array;
  private readonly nonce: Uint8Array;

  /** A fresh random key, or (`material`) the key another thread of this process drew. */
  constructor(material?: FingerprintMaterial) {
    this.key = material?.key ?? randomBytes(32);
    this.nonce = material?.nonce ?? randomBytes(12);
  }

  /**
   * @internal The key and nonce, for a worker thread of this process that fingerprints a
   * segment of the same history (split-scan.ts): they never leave the process.
   */
  material(): FingerprintMaterial {
    return { key: this.key, nonce: this.nonce };
  }

  /** A fingerprint of no bytes yet: equal bytes fed in any pieces give equal `finish()`es. */
  start(): Fingerprint {
    return new Fingerprint(createCipheriv("aes-256-gcm", this.key, this.nonce));
  }
}

export interface FingerprintMaterial {
  key: Uint8Array;
  nonce: Uint8Array;
}

export class Fingerprint {
  constructor(private readonly cipher: CipherGCM) {}

  update(bytes: Uint8Array): this {
    this.cipher.setAAD(bytes);
    return this;
  }

  /** The 16-byte fingerprint of everything fed; the fingerprint takes no more bytes after. */
  finish(): Buffer {
    this.cipher.final();
    return this.cipher.getAuthTag();
  }
}

/** What the archive readers share: where extracted bytes go, and the error they throw. */

/** Receives a member's bytes in order; awaited before the next chunk (back-pressure). */
export type MemberSink = (chunk: Buffer) => Promise<void> | void;

/** An archive that cannot be read as expected: missing member, damaged structure, wrong size. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

import { createHash } from 'node:crypto';

/**
 * Log lines carry no id, and CS2 resends a batch whose POST committed when it saw a socket error.
 * A line is identified by its text (which holds its timestamp, to the second or millisecond) and
 * by how many identical lines came before it in the same batch: a batch sent twice matches line
 * for line, while a line a server really wrote twice in one batch is kept twice. The fingerprint
 * is 128 bits of SHA-256, base64url (22 characters), stored per server while the line's time is
 * inside the ingest window (time-window.ts); lines older than that are refused.
 *
 * Over UDP (`unit` `line`) every datagram holds one line and is its own batch: the same line twice
 * is a datagram received twice (a network duplicate, a relay resending), wherever the receiver's
 * flushes happen to cut, so identical lines share one fingerprint and count once.
 *
 * Only lines that change something are fingerprinted: a resent `other` line (chat, purchases,
 * damage) is a no-op anyway, and those are most of a log.
 */
export type ResendUnit = 'batch' | 'line';

export function lineFingerprints(texts: readonly string[], unit: ResendUnit = 'batch'): string[] {
  const seen = new Map<string, number>();
  return texts.map((raw) => {
    const text = raw.trimEnd();
    const n = unit === 'line' ? 0 : (seen.get(text) ?? 0);
    seen.set(text, n + 1);
    return createHash('sha256').update(`${n}\n${text}`).digest('base64url').slice(0, 22);
  });
}

import { randomBytes } from 'node:crypto';

/**
 * Client ids and batches (plugin-sdk/vectors/batching.json). The instance id is drawn when the SDK
 * starts, so ids never repeat across restarts; the events in a spool keep the ids they were given.
 */
export const newInstanceId = (): string => randomBytes(8).toString('hex');

export function clientIds(instance: string, firstSeq = 1): () => string {
  let seq = firstSeq;
  return () => `${instance}-${seq++}`;
}

export const BATCH_DEFAULTS = { maxEvents: 1000, maxBytes: 1_000_000 };
/** `{"events":[` and `]}` */
const ENVELOPE_BYTES = 13;

/**
 * How many of the events (given their serialized sizes in bytes) the next batch takes: at most
 * maxEvents, a body of at most maxBytes; an event too large alone still goes, alone.
 */
export function nextBatchLength(sizes: readonly number[], maxEvents: number, maxBytes: number): number {
  let bytes = ENVELOPE_BYTES;
  let n = 0;
  for (const size of sizes) {
    if (n === maxEvents) break;
    const added = size + (n > 0 ? 1 : 0);
    if (n > 0 && bytes + added > maxBytes) break;
    bytes += added;
    n++;
  }
  return n;
}

/** Every batch's length, in order. */
export function cutBatches(sizes: readonly number[], maxEvents: number, maxBytes: number): number[] {
  const lengths: number[] = [];
  for (let i = 0; i < sizes.length;) {
    const n = nextBatchLength(sizes.slice(i), maxEvents, maxBytes);
    lengths.push(n);
    i += n;
  }
  return lengths;
}

/** What the SDK does with the answer to a batch of events. */
export type BatchAction = 'done' | 'retry' | 'drop' | 'stop';
export function batchAction(status: number | 'network error' | 'timeout'): BatchAction {
  if (typeof status !== 'number') return 'retry';
  if (status >= 200 && status < 300) return 'done';
  if (status === 401 || status === 403) return 'stop';
  // a redirect or a proxy's 404 is not the hub refusing the batch: the events are kept
  if (status < 400 || status === 404 || status === 408 || status === 429 || status >= 500) return 'retry';
  return 'drop';
}

import type { Broadcast } from '../../http/broadcast.js';

/** The broadcast topic (under the deployment's prefix) that says: new events are in the outbox. */
export const EVENTS_COMMITTED = 'events.committed';

/**
 * Tells every instance of the deployment, this one included, that events were committed: their
 * streams and delivery workers read the outbox now instead of at their next poll. Call it only
 * after the commit (a reader woken before would miss the events). Best effort like every broadcast:
 * a lost wake-up only delays until the next poll.
 */
export function announceEvents(broadcast: Broadcast): void {
  broadcast.publish(EVENTS_COMMITTED, '');
}

/** Calls `listener` on every announcement, from this instance or another; returns the unsubscribe. */
export function onEventsAnnounced(broadcast: Broadcast, listener: () => void): () => void {
  return broadcast.subscribe(EVENTS_COMMITTED, () => listener());
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
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

/** Per database: the broadcasts its commits of events are announced on (how many opened each). */
const announcers = new WeakMap<Kysely<Database>, Map<Broadcast, number>>();
/** Broadcasts with an announcement already due this turn of the event loop. */
const due = new WeakSet<Broadcast>();

/**
 * From now until the returned function is called, every commit of events made through `db` (the
 * outbox calls `eventsCommitted` after the commit) is announced on `broadcast`: the API and the
 * worker each link their database to their broadcast; in one process sharing both (`hub serve` on
 * the embedded setup) the pair is announced once. Commits in one turn of the event loop make one
 * announcement (a burst of commits is one message to every instance, not one each).
 */
export function announceCommits(db: Kysely<Database>, broadcast: Broadcast): () => void {
  let linked = announcers.get(db);
  if (!linked) announcers.set(db, (linked = new Map<Broadcast, number>()));
  const map = linked;
  map.set(broadcast, (map.get(broadcast) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (map.get(broadcast) ?? 1) - 1;
    if (n > 0) map.set(broadcast, n);
    else map.delete(broadcast);
  };
}

/** After a commit that wrote events through `db` (outbox.ts, by `afterCommit`). Never throws. */
export function eventsCommitted(db: Kysely<Database>): void {
  for (const broadcast of announcers.get(db)?.keys() ?? []) {
    if (due.has(broadcast)) continue;
    due.add(broadcast);
    setImmediate(() => {
      due.delete(broadcast);
      announceEvents(broadcast);
    });
  }
}

import type { LogPlayer, PlayerEvent } from './parsers/log-events.js';

/**
 * Who is connected to a server, by the server's user id: the id and name each connection was
 * announced with (`connected`, `entered the game`, a name change) or first seen under. It settles
 * lines a forged token made ambiguous, and finds ids that two players hold at once (bot mods give
 * every bot `STEAM_0:0:12345`): a real account cannot be connected twice, so such an id is fake.
 */
export interface Roster {
  /** user id -> [id, name] */
  byUid: Record<string, [string, string]>;
  /** raw ids seen on two connected players with different names at once */
  fake: string[];
}

export const emptyRoster = (): Roster => ({ byUid: {}, fake: [] });

const MAX_ENTRIES = 512;

/** `record` without `key` (stream state is plain JSON, so records rather than maps). */
export const omit = <T>(record: Record<string, T>, key: string): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
const MAX_FAKE = 512;

function markFake(roster: Roster, id: string): void {
  if (roster.fake.includes(id)) return;
  roster.fake.push(id);
  if (roster.fake.length > MAX_FAKE) roster.fake.shift();
}

/** Records a connection; `rename` replaces the name of a known one. */
export function remember(roster: Roster, p: LogPlayer, name = p.name): void {
  const entry = roster.byUid[p.uid];
  if (entry && entry[0] === p.id && entry[1] === name) return;
  if (!entry) {
    for (const [uid, [id, other]] of Object.entries(roster.byUid)) {
      if (id !== p.id || uid === p.uid) continue;
      // The same id under the same name is a reconnect whose disconnect line we missed.
      if (other === name) roster.byUid = omit(roster.byUid, uid);
      else if (p.steamId) markFake(roster, p.id);
    }
    const uids = Object.keys(roster.byUid);
    if (uids.length >= MAX_ENTRIES && uids[0] !== undefined) roster.byUid = omit(roster.byUid, uids[0]);
  }
  roster.byUid[p.uid] = [p.id, name];
}

export function forget(roster: Roster, p: LogPlayer): void {
  const entry = roster.byUid[p.uid];
  if (entry && entry[0] === p.id) roster.byUid = omit(roster.byUid, p.uid);
}

export const isFake = (roster: Roster, id: string): boolean => roster.fake.includes(id);

const participants = (e: PlayerEvent): LogPlayer[] => (e.kind === 'kill' ? [e.killer, e.victim] : [e.player]);

type Fit = 'known' | 'unknown' | 'contradicts';
function fit(roster: Roster, p: LogPlayer): Fit {
  const entry = roster.byUid[p.uid];
  if (!entry) return 'unknown';
  return entry[0] === p.id && entry[1] === p.name ? 'known' : 'contradicts';
}

/**
 * The reading of an ambiguous line that the roster supports. Readings that contradict a known
 * connection (another id or name under that user id) are dropped; of the rest: the only one; else
 * the only one whose every participant is known; else the only one whose subject (who wrote the
 * line) is known. Otherwise null: the line is not used, so a forged token can cost its writer
 * their own line but never credit anyone with anything.
 */
export function settle(roster: Roster, options: PlayerEvent[]): PlayerEvent | null {
  const fits = options
    .map((event) => ({ event, fits: participants(event).map((p) => fit(roster, p)) }))
    .filter((o) => !o.fits.includes('contradicts'));
  const only = (list: typeof fits) => (list.length === 1 ? (list[0]?.event ?? null) : null);
  return (
    only(fits) ??
    only(fits.filter((o) => o.fits.every((f) => f === 'known'))) ??
    only(fits.filter((o) => o.fits[0] === 'known'))
  );
}

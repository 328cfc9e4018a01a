import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db, Dialect } from '../../db/connect.js';
import { preparedOn } from '../../db/prepared.js';
import type { Database } from '../../db/types.js';
import { ACHIEVEMENTS, type Counter } from '../../engines/achievements.js';
import { chunks } from '../killboard/rollups.js';
import { KILL_COLUMNS } from '../killboard/kill-columns.js';

/** All SQL of the ingest pipeline; every function runs inside the batch's transaction. */
type Trx = Transaction<Database>;
export type NewKill = Omit<Database['kills'], 'id'> & { id?: never };

const DEFAULT_AVATAR = '/avatars/default.png';
const KILL_CHUNK = 5000;

const cleanName = (name: string): string => name.replace(/\s+/g, ' ').trim().slice(0, 40);

/**
 * SteamID64 -> user id, creating a hub profile for every Steam ID seen for the first time (one
 * select, then bulk inserts). The username is the in-game name; on a clash with an existing
 * username it gets `#` and the last six digits of the Steam ID, and failing that `steam_<id>`.
 */
/** The hub user ids of these SteamIDs that have a profile (none is created). */
export async function knownUsers(trx: Trx, steamIds: readonly string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const chunk of chunks([...new Set(steamIds)], 500)) {
    const rows = await trx
      .selectFrom('users')
      .select(['id', 'steam_id'])
      .where('steam_id', 'in', chunk)
      .execute();
    for (const r of rows) if (r.steam_id) ids.set(r.steam_id, r.id);
  }
  return ids;
}

export async function resolveUsers(
  trx: Trx,
  players: Map<string, string>,
  now: number,
  /** filled with the profiles this call created: user id -> SteamID64 and name */
  created?: Map<number, { steamId: string; name: string }>,
): Promise<Map<string, number>> {
  const ids = await knownUsers(trx, [...players.keys()]);
  const known = new Set(ids.keys());
  const naming = [
    (steam: string, name: string) => cleanName(name) || `player_${steam.slice(-6)}`,
    (steam: string, name: string) => `${cleanName(name) || 'player'}#${steam.slice(-6)}`,
    (steam: string) => `steam_${steam}`,
  ];
  for (const username of naming) {
    const missing = [...players.keys()].filter((s) => !ids.has(s)).sort();
    if (missing.length === 0) break;
    // Distinct names inside one insert, so one clash does not hold back the others.
    const taken = new Set<string>();
    const rows = missing
      .map((steam) => ({ steam, username: username(steam, players.get(steam) ?? '') }))
      .filter((r) => !taken.has(r.username.toLowerCase()) && taken.add(r.username.toLowerCase()));
    for (const chunk of chunks(rows, 500)) {
      await trx
        .insertInto('users')
        .values(
          chunk.map((r) => ({
            username: r.username,
            avatar: DEFAULT_AVATAR,
            steam_id: r.steam,
            joined_at: now,
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    for (const [steamId, id] of await knownUsers(trx, missing)) ids.set(steamId, id);
  }
  if (created)
    for (const [steamId, id] of ids)
      if (!known.has(steamId)) created.set(id, { steamId, name: players.get(steamId) ?? '' });
  return ids;
}

const PG_KILL_TYPES =
  'game text, server_id int, match_id bigint, killer_user_id int, killer_steam_id text, killer_name text, ' +
  'victim_user_id int, victim_steam_id text, victim_name text, weapon text, headshot int, distance real, ' +
  'round_number int, occurred_at bigint';
const SQLITE_KILL_ROW = `insert into kills (${KILL_COLUMNS.join(', ')}) values (${KILL_COLUMNS.map(() => '?').join(', ')})`;

/**
 * SQLite: one single-row statement, prepared once per connection (db/prepared.ts), run for each
 * kill on the driver's handle, inside the batch's transaction (the handle is the connection the
 * transaction holds). Measured in the pipeline: 7 to 9 µs of CPU per kill against 11 to 16 for the
 * rows travelling as one JSON parameter that SQLite unpacks (`json_each`, 14 `->>` per row).
 * PostgreSQL: ONE JSON parameter per chunk, unpacked by the database (`json_to_recordset`): a
 * statement with 14 bound parameters per row cost more to build than the insert itself, and a
 * statement per row would be a round trip each.
 */
export async function insertKills(
  trx: Trx,
  db: Pick<Db, 'dialect' | 'sqlite'>,
  kills: NewKill[],
): Promise<void> {
  if (kills.length === 0) return;
  if (db.dialect === 'sqlite') {
    // every SQLite Db carries its driver handle (db/connect.ts)
    if (!db.sqlite?.inTransaction) throw new Error('insertKills runs inside the batch transaction');
    const insert = preparedOn(db.sqlite, SQLITE_KILL_ROW);
    for (const k of kills) insert.run(KILL_COLUMNS.map((c) => k[c]));
    return;
  }
  const columns = sql.join(KILL_COLUMNS.map((c) => sql.id(c)));
  for (const chunk of chunks(kills, KILL_CHUNK)) {
    const objects = JSON.stringify(chunk.map((k) => Object.fromEntries(KILL_COLUMNS.map((c) => [c, k[c]]))));
    await sql`insert into kills (${columns}) select ${columns} from json_to_recordset(${objects}::json) as x(${sql.raw(PG_KILL_TYPES)})`.execute(
      trx,
    );
  }
}

export interface CounterDelta {
  user_id: number;
  counter: Counter;
  value: number;
}

/** Adds `sums` to counters and raises `maxes` (high-water marks like most kills in a round). */
export async function bumpCounters(
  trx: Trx,
  dialect: Dialect,
  sums: CounterDelta[],
  maxes: CounterDelta[],
): Promise<void> {
  // Sorted so concurrent batches lock rows in one order (no deadlocks on PostgreSQL).
  const order = (a: CounterDelta, b: CounterDelta) =>
    a.user_id - b.user_id || a.counter.localeCompare(b.counter);
  const greatest = dialect === 'sqlite' ? 'max' : 'greatest';
  for (const chunk of chunks(sums.sort(order), 1000)) {
    await trx
      .insertInto('player_counters')
      .values(chunk)
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'counter'])
          .doUpdateSet({ value: sql`player_counters.value + excluded.value` }),
      )
      .execute();
  }
  for (const chunk of chunks(maxes.sort(order), 1000)) {
    await trx
      .insertInto('player_counters')
      .values(chunk)
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'counter'])
          .doUpdateSet({ value: sql`${sql.raw(greatest)}(player_counters.value, excluded.value)` }),
      )
      .execute();
  }
}

export interface PlayerSnapshot {
  totalXp: number;
  counters: Partial<Record<Counter, number>>;
  held: Set<string>;
}

/** Counters, XP and unlocked achievement codes of the given users, in three queries. */
export async function readPlayers(trx: Trx, userIds: number[]): Promise<Map<number, PlayerSnapshot>> {
  const out = new Map<number, PlayerSnapshot>();
  for (const chunk of chunks(userIds, 500)) {
    const users = await trx.selectFrom('users').select(['id', 'total_xp']).where('id', 'in', chunk).execute();
    for (const u of users) out.set(u.id, { totalXp: u.total_xp, counters: {}, held: new Set() });
    const counters = await trx
      .selectFrom('player_counters')
      .select(['user_id', 'counter', 'value'])
      .where('user_id', 'in', chunk)
      .execute();
    for (const c of counters) {
      const p = out.get(c.user_id);
      if (p) p.counters[c.counter as Counter] = c.value;
    }
    const held = await trx
      .selectFrom('user_achievements as ua')
      .innerJoin('achievements as a', 'a.id', 'ua.achievement_id')
      .select(['ua.user_id', 'a.code'])
      .where('ua.user_id', 'in', chunk)
      .execute();
    for (const h of held) out.get(h.user_id)?.held.add(h.code);
  }
  return out;
}

export interface ProgressWrite {
  userId: number;
  totalXp: number;
  level: number;
  levelBefore: number;
  unlockedIds: number[];
  xp: { reason: string; amount: number }[];
}

export async function writeProgress(
  trx: Trx,
  dialect: Dialect,
  writes: ProgressWrite[],
  now: number,
): Promise<void> {
  const unlocks = writes.flatMap((w) =>
    w.unlockedIds.map((achievement_id) => ({ user_id: w.userId, achievement_id, unlocked_at: now })),
  );
  for (const chunk of chunks(unlocks, 1000)) {
    await trx
      .insertInto('user_achievements')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  const xp = writes.flatMap((w) =>
    w.xp.map((x) => ({ user_id: w.userId, reason: x.reason, amount: x.amount, occurred_at: now })),
  );
  for (const chunk of chunks(xp, 1000)) await trx.insertInto('xp_events').values(chunk).execute();
  const ups = writes
    .filter((w) => w.level > w.levelBefore)
    .map((w) => ({ user_id: w.userId, from_level: w.levelBefore, to_level: w.level, occurred_at: now }));
  for (const chunk of chunks(ups, 1000)) await trx.insertInto('level_ups').values(chunk).execute();
  await updateUserProgress(trx, dialect, writes);
}

/**
 * Every player's XP, level and achievement count in one UPDATE per chunk (the rows travel as one
 * JSON parameter, like kills), not one statement per player. On PostgreSQL the rows are locked
 * first, in id order, so concurrent batches sharing players cannot deadlock (the join of the
 * UPDATE visits them in whatever order the plan picks).
 */
async function updateUserProgress(trx: Trx, dialect: Dialect, writes: ProgressWrite[]): Promise<void> {
  const rows = [...writes]
    .sort((a, b) => a.userId - b.userId)
    .map((w) => [w.userId, w.totalXp, w.level, w.unlockedIds.length]);
  for (const chunk of chunks(rows, 5000)) {
    const payload = JSON.stringify(chunk);
    if (dialect === 'sqlite') {
      await sql`update users set total_xp = p.value ->> 1, level = p.value ->> 2,
        achievements_count = achievements_count + (p.value ->> 3)
        from json_each(${payload}) as p where users.id = p.value ->> 0`.execute(trx);
      continue;
    }
    const ids = chunk.map((r) => r[0]);
    await sql`select id from users where id = any(${ids}::int[]) order by id for update`.execute(trx);
    await sql`update users set total_xp = (p ->> 1)::bigint, level = (p ->> 2)::int,
      achievements_count = users.achievements_count + (p ->> 3)::int
      from json_array_elements(${payload}::json) as p where users.id = (p ->> 0)::int`.execute(trx);
  }
}

/**
 * Inserts missing catalog rows (by code) and returns code -> id. The seeder may have written the
 * catalog already; ingest must work on a database that was never seeded.
 */
export async function ensureAchievementCatalog(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = ACHIEVEMENTS.map(({ code, name, description, icon, category, xp_reward }) => ({
    code,
    name,
    description,
    icon,
    category,
    xp_reward,
  }));
  await db
    .insertInto('achievements')
    .values(rows)
    .onConflict((oc) => oc.column('code').doNothing())
    .execute();
  const all = await db.selectFrom('achievements').select(['id', 'code']).execute();
  return new Map(all.map((r) => [r.code, r.id]));
}

/**
 * Marks client ids as seen; returns the ones that were new (a resent event is a duplicate). The ids
 * travel as one JSON parameter, like kills. (SQLite needs the `where true` to parse an upsert
 * after a SELECT.)
 */
export async function claimClientIds(
  trx: Trx,
  dialect: Dialect,
  serverId: number,
  clientIds: string[],
  now: number,
): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (const chunk of chunks(clientIds, 5000)) {
    const ids = JSON.stringify(chunk);
    const source =
      dialect === 'sqlite'
        ? sql`select ${serverId}, value, ${now} from json_each(${ids}) where true`
        : sql`select ${serverId}::int, x, ${now}::bigint from json_array_elements_text(${ids}::json) as x`;
    const rows = await sql<{
      client_id: string;
    }>`insert into ingest_events (server_id, client_id, received_at) ${source}
      on conflict (server_id, client_id) do nothing returning client_id`.execute(trx);
    for (const r of rows.rows) fresh.add(r.client_id);
  }
  return fresh;
}

/** The server's log-stream state, locked for this transaction on PostgreSQL. */
export async function loadStreamState(
  trx: Trx,
  dialect: Dialect,
  serverId: number,
): Promise<string | undefined> {
  let q = trx.selectFrom('ingest_state').select('state').where('server_id', '=', serverId);
  if (dialect === 'postgres') q = q.forUpdate();
  return (await q.executeTakeFirst())?.state;
}

export async function saveStreamState(trx: Trx, serverId: number, state: string, now: number): Promise<void> {
  await trx
    .insertInto('ingest_state')
    .values({ server_id: serverId, state, updated_at: now })
    .onConflict((oc) => oc.column('server_id').doUpdateSet({ state, updated_at: now }))
    .execute();
}

export async function insertMatch(trx: Trx, row: Omit<Database['matches'], 'id'>): Promise<number> {
  const r = await trx.insertInto('matches').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function readElo(
  trx: Trx,
  game: string,
  userIds: number[],
): Promise<Map<number, { rating: number; games: number; wins: number }>> {
  if (userIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('elo_ratings')
    .select(['user_id', 'rating', 'games', 'wins'])
    .where('game', '=', game)
    .where('user_id', 'in', userIds)
    .execute();
  return new Map(rows.map((r) => [r.user_id, { rating: r.rating, games: r.games, wins: r.wins }]));
}

export async function writeElo(
  trx: Trx,
  game: string,
  matchId: number,
  changes: { userId: number; before: number; after: number; games: number; wins: number }[],
  at: number,
): Promise<void> {
  if (changes.length === 0) return;
  // One statement per match; sorted so concurrent batches lock rows in one order.
  await trx
    .insertInto('elo_ratings')
    .values(
      [...changes]
        .sort((a, b) => a.userId - b.userId)
        .map((c) => ({
          user_id: c.userId,
          game,
          rating: c.after,
          games: c.games,
          wins: c.wins,
          updated_at: at,
        })),
    )
    .onConflict((oc) =>
      oc.columns(['user_id', 'game']).doUpdateSet((eb) => ({
        rating: eb.ref('excluded.rating'),
        games: eb.ref('excluded.games'),
        wins: eb.ref('excluded.wins'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
  await trx
    .insertInto('elo_history')
    .values(
      changes.map((c) => ({
        match_id: matchId,
        user_id: c.userId,
        game,
        rating_before: c.before,
        rating_after: c.after,
        occurred_at: at,
      })),
    )
    .execute();
}

/** Records tournament participation; returns the users for whom it is their first match in it. */
export async function joinTournament(trx: Trx, tournamentId: number, userIds: number[]): Promise<number[]> {
  const exists = await trx
    .selectFrom('tournaments')
    .select('id')
    .where('id', '=', tournamentId)
    .executeTakeFirst();
  if (!exists || userIds.length === 0) return [];
  const rows = await trx
    .insertInto('tournament_participants')
    .values(userIds.map((user_id) => ({ tournament_id: tournamentId, user_id })))
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .execute();
  return rows.map((r) => r.user_id);
}

/**
 * Records the fingerprints of log lines about to be applied (line-dedupe.ts) and returns those
 * not recorded before: the others are a resend. One JSON parameter per chunk, as for client ids.
 */
export async function claimLines(
  trx: Trx,
  dialect: Dialect,
  serverId: number,
  lines: { fingerprint: string; at: number }[],
): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (const chunk of chunks(lines, 5000)) {
    const rows = JSON.stringify(chunk.map((l) => [l.fingerprint, l.at]));
    const source =
      dialect === 'sqlite'
        ? sql`select ${serverId}, value ->> 0, value ->> 1 from json_each(${rows}) where true`
        : sql`select ${serverId}::int, x ->> 0, (x ->> 1)::bigint from json_array_elements(${rows}::json) as x`;
    const inserted = await sql<{ fingerprint: string }>`insert into ingest_lines (server_id, fingerprint, at)
      ${source} on conflict (server_id, fingerprint) do nothing returning fingerprint`.execute(trx);
    for (const r of inserted.rows) fresh.add(r.fingerprint);
  }
  return fresh;
}

/** Forgets line fingerprints and event client ids older than `before` (out of the ingest window). */
export async function forgetIngestedBefore(trx: Trx, before: number): Promise<void> {
  await trx.deleteFrom('ingest_lines').where('at', '<', before).execute();
  await trx.deleteFrom('ingest_events').where('received_at', '<', before).execute();
}

/** The map the server is on (what `/servers` shows). */
export async function serverMap(trx: Trx, serverId: number): Promise<string> {
  const row = await trx
    .selectFrom('game_servers')
    .select('map')
    .where('id', '=', serverId)
    .executeTakeFirst();
  return row?.map ?? '';
}

/** A plugin's `map_change`: the server's map follows. */
export async function setServerMap(trx: Trx, serverId: number, map: string): Promise<void> {
  await trx.updateTable('game_servers').set({ map }).where('id', '=', serverId).execute();
}

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../src/db/connect.js';
import { ACHIEVEMENTS } from '../src/engines/achievements.js';
import { levelForXp } from '../src/engines/levels.js';
import { dayOf } from '../src/modules/killboard/rollups.js';
import { GAMES } from '../src/seed/games.js';
import { seedDatabase, SeedRefusedError } from '../src/seed/index.js';
import { seedRepo } from '../src/seed/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

const NOW = Date.UTC(2026, 10, 21, 15, 30, 0);
const DAY = 86_400_000;

/** Every seeded table in a stable order; a digest of all rows identifies the generated world. */
const ORDERED: [string, string][] = [
  ['users', 'id'],
  ['game_servers', 'id'],
  ['server_polls', 'server_id, hour'],
  ['kills', 'id'],
  ['frag_daily', 'user_id, game, day'],
  ['frag_totals', 'period, game, user_id'],
  ['death_totals', 'user_id, game'],
  ['matches', 'id'],
  ['elo_history', 'id'],
  ['elo_ratings', 'user_id, game'],
  ['forum_categories', 'id'],
  ['forum_threads', 'id'],
  ['forum_posts', 'id'],
  ['tournaments', 'id'],
  ['tournament_participants', 'tournament_id, user_id'],
  ['user_achievements', 'user_id, achievement_id'],
  ['clans', 'id'],
  ['clan_members', 'clan_id, user_id'],
];

async function digest(db: Db): Promise<string> {
  const hash = createHash('sha256');
  for (const [table, order] of ORDERED) {
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(db.kysely);
    hash.update(`${table}:${rows.length}:${JSON.stringify(rows)}\n`);
  }
  return hash.digest('hex');
}

async function count(db: Db, query: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`${sql.raw(query)}`.execute(db.kysely);
  return Number(rows[0]?.n ?? 0);
}

for (const dialect of testDialects()) {
  describe(`seed (${dialect})`, () => {
    describe('determinism', () => {
      const dbs: TestDb[] = [];
      after(async () => {
        for (const t of dbs) await t.drop();
      });

      it('gives identical rows for the same seed and clock, different rows for another seed', async () => {
        const digests: string[] = [];
        for (const seed of [42, 42, 43]) {
          const t = await openTestDb(dialect);
          dbs.push(t);
          await seedDatabase(t.db, { users: 60, kills: 1500, seed, now: NOW });
          digests.push(await digest(t.db));
        }
        assert.equal(digests[0], digests[1]);
        assert.notEqual(digests[0], digests[2]);
        // worlds too big for the in-memory rollup grid write daily rollups per day: same rows
        const perDay = await openTestDb(dialect);
        dbs.push(perDay);
        await seedDatabase(perDay.db, { users: 60, kills: 1500, seed: 42, now: NOW, maxDenseCells: 0 });
        assert.equal(await digest(perDay.db), digests[0]);
      });

      it('refuses a database with data, and --reset replaces it with the same world', async () => {
        const t = dbs[0];
        assert.ok(t);
        const before = await digest(t.db);
        await assert.rejects(
          seedDatabase(t.db, { users: 60, kills: 1500, seed: 42, now: NOW }),
          (err: unknown) => {
            assert.ok(err instanceof SeedRefusedError);
            assert.match(err.message, /already holds data.*--reset/);
            return true;
          },
        );
        assert.equal(await digest(t.db), before, 'a refused seed changes nothing');
        await seedDatabase(t.db, { users: 60, kills: 1500, seed: 42, now: NOW, reset: true });
        const ids = await count(t.db, 'select min(id) as n from kills');
        assert.ok(ids > 1500, 'kill ids continue after a reset; every other table is rebuilt identically');
        const rebuilt = await sql<{ n: number }>`select count(*) as n from users`.execute(t.db.kysely);
        assert.equal(Number(rebuilt.rows[0]?.n), 60);
        // explicit ids must not break later inserts (PostgreSQL sequences are moved past them)
        const user = await factories(t.db).makeUser();
        assert.equal(user.id, 61);
      });

      it('rejects sizes the generator cannot honour', async () => {
        const t = dbs[2];
        assert.ok(t);
        await assert.rejects(seedDatabase(t.db, { users: 9, reset: true }), /users must be an integer ≥ 10/);
        await assert.rejects(seedDatabase(t.db, { users: 10, kills: -1, reset: true }), /kills must be/);
      });

      it('restores the kill indexes it drops for a bulk load', async () => {
        const t = dbs[1];
        assert.ok(t);
        const indexQuery =
          dialect === 'sqlite'
            ? "select count(*) as n from sqlite_master where type = 'index' and tbl_name = 'kills' and sql is not null"
            : "select count(*) as n from pg_indexes where tablename = 'kills' and schemaname = current_schema()";
        const beforeCount = await count(t.db, indexQuery);
        let during = -1;
        await seedRepo(t.db).withoutIndexes('kills', async () => {
          during = await count(t.db, indexQuery);
        });
        // the four of 0001_core plus the two per-player-and-game indexes of 0002 (+ the primary key on PostgreSQL)
        assert.equal(beforeCount, dialect === 'sqlite' ? 6 : 7);
        assert.equal(during, dialect === 'sqlite' ? 0 : 1, 'only the primary key stays');
        assert.equal(await count(t.db, indexQuery), beforeCount);
        if (t.db.sqlite) {
          // the bulk-load setting ends with the seed: the connection is durable again
          assert.equal(t.db.sqlite.pragma('synchronous', { simple: true }), 1);
        }
      });
    });

    describe('defaults', () => {
      let t: TestDb;
      let db: Db;
      before(async () => {
        t = await openTestDb(dialect);
        db = t.db;
        await seedDatabase(db, { now: NOW });
      });
      after(() => t.drop());

      it('makes clans of every game, public ones enough for several pages, their counts true', async () => {
        // 500 users: one clan per 25; the conformance run (40 users) still gets 6, five public
        assert.equal(await count(db, 'select count(*) as n from clans'), 16);
        assert.ok((await count(db, "select count(*) as n from clans where visibility = 'public'")) >= 12);
        assert.equal(await count(db, 'select count(distinct game) as n from clans'), GAMES.length);
        assert.equal(
          await count(
            db,
            'select count(*) as n from clans c where member_count <> (select count(*) from clan_members m where m.clan_id = c.id)',
          ),
          0,
          'member_count is the number of member rows',
        );
        assert.equal(
          await count(db, "select count(*) as n from clan_members where role = 'owner'"),
          16,
          'one owner per clan',
        );
      });

      it('fills every default page', async () => {
        assert.equal(await count(db, 'select count(*) as n from users'), 500);
        assert.ok(
          (await count(db, 'select count(*) as n from users where total_xp > 0')) >= 100,
          'leaderboard',
        );
        assert.ok((await count(db, 'select count(*) as n from forum_threads')) >= 25);
        assert.ok(
          (await count(
            db,
            'select max(c) as n from (select count(*) as c from forum_threads group by category_id) x',
          )) >= 25,
          'a category page',
        );
        assert.ok(
          (await count(
            db,
            'select count(*) as n from (select thread_id from forum_posts group by thread_id having count(*) >= 25) x',
          )) >= 1,
          'a thread with a full page of posts',
        );
        for (const game of ['cs2', 'cs16', 'rust']) {
          const recent = await count(
            db,
            `select count(*) as n from kills where game = '${game}' and occurred_at >= ${NOW - 7 * DAY}`,
          );
          assert.ok(recent >= 50, `${game} kills in the last 7 days: ${recent}`);
        }
        for (const period of ['week', 'month', 'all']) {
          assert.ok(
            (await count(db, `select count(*) as n from frag_totals where period = '${period}'`)) >= 25,
            period,
          );
        }
        assert.ok((await count(db, "select count(*) as n from elo_ratings where game = 'cs2'")) >= 100);
        assert.ok((await count(db, "select count(*) as n from elo_ratings where game = 'cs16'")) >= 100);
        for (const status of ['upcoming', 'active', 'completed']) {
          assert.ok(
            (await count(db, `select count(*) as n from tournaments where status = '${status}'`)) >= 1,
            status,
          );
        }
        assert.equal(
          await count(
            db,
            `select count(*) as n from tournaments where status = 'upcoming' and starts_at <= ${NOW}`,
          ),
          0,
        );
        for (const game of ['cs2', 'cs16', 'rust', 'minecraft']) {
          for (const status of ['online', 'offline']) {
            assert.ok(
              (await count(
                db,
                `select count(*) as n from game_servers where game = '${game}' and status = '${status}'`,
              )) >= 1,
              `${game} ${status}`,
            );
          }
        }
        assert.equal(
          await count(db, 'select count(*) as n from game_servers where players > max_players'),
          0,
        );
        assert.equal(
          await count(db, "select count(*) as n from game_servers where status = 'offline' and players > 0"),
          0,
        );
      });

      it('writes kills that make sense', async () => {
        assert.equal(await count(db, 'select count(*) as n from kills'), 20_000);
        assert.equal(
          await count(db, 'select count(*) as n from kills where killer_user_id = victim_user_id'),
          0,
        );
        assert.equal(await count(db, `select count(*) as n from kills where occurred_at > ${NOW}`), 0);
        assert.equal(
          await count(db, `select count(*) as n from kills where occurred_at < ${(dayOf(NOW) - 89) * DAY}`),
          0,
          '90 UTC days ending today',
        );
        assert.ok(
          (await count(db, `select count(*) as n from kills where occurred_at >= ${dayOf(NOW) * DAY}`)) > 0,
          'today',
        );
        // participants carry the user's own name and steam id; servers belong to the kill's game
        assert.equal(
          await count(
            db,
            `select count(*) as n from kills k join users u on u.id = k.killer_user_id
             join users v on v.id = k.victim_user_id join game_servers s on s.id = k.server_id
             where u.username <> k.killer_name or u.steam_id <> k.killer_steam_id
               or v.username <> k.victim_name or v.steam_id <> k.victim_steam_id or s.game <> k.game`,
          ),
          0,
        );
        for (const game of GAMES.filter((g) => g.weapons.length > 0)) {
          const { rows } = await sql<{
            weapon: string;
          }>`select distinct weapon from kills where game = ${game.code}`.execute(db.kysely);
          const codes = new Set(game.weapons.map((w) => w.code));
          for (const { weapon } of rows) assert.ok(codes.has(weapon), `${weapon} is a ${game.code} weapon`);
          const hs = await sql<{
            h: number;
          }>`select avg(headshot * 1.0) as h from kills where game = ${game.code}`.execute(db.kysely);
          const rate = Number(hs.rows[0]?.h);
          assert.ok(rate >= 0.35 && rate <= 0.5, `${game.code} headshot rate ${rate}`);
        }
        const avg = async (game: string) =>
          Number(
            (
              await sql<{ d: number }>`select avg(distance) as d from kills where game = ${game}`.execute(
                db.kysely,
              )
            ).rows[0]?.d,
          );
        assert.ok((await avg('rust')) > 1.5 * (await avg('cs2')), 'rust fights are longer range');
        assert.equal(
          await count(db, "select count(*) as n from kills where game <> 'rust' and round_number > 30"),
          0,
        );
        const { rows: steam } = await sql<{ steam_id: string }>`select steam_id from users`.execute(
          db.kysely,
        );
        for (const { steam_id } of steam) assert.match(steam_id, /^7656119\d{10}$/);
      });

      it('keeps the rollups equal to an aggregation of the kills', async () => {
        const windowDay = dayOf(NOW);
        const meta = await db.kysely
          .selectFrom('meta')
          .select('value')
          .where('key', '=', 'frag_window_day')
          .executeTakeFirst();
        assert.equal(meta?.value, String(windowDay));
        const mismatch = (from: number | null) =>
          count(
            db,
            `select count(*) as n from (
               select killer_user_id as user_id, game, count(*) as kills, sum(headshot) as headshots from kills
               ${from === null ? '' : `where occurred_at >= ${from * DAY}`} group by killer_user_id, game
             ) a full outer join (select * from frag_totals where period = '${from === null ? 'all' : from === windowDay - 6 ? 'week' : 'month'}') t
             on t.user_id = a.user_id and t.game = a.game
             where a.kills is null or t.kills is null or a.kills <> t.kills or a.headshots <> t.headshots`,
          );
        if (dialect === 'postgres') {
          // SQLite before 3.39 has no full outer join; the PostgreSQL run checks both directions
          assert.equal(await mismatch(null), 0, 'all');
          assert.equal(await mismatch(windowDay - 6), 0, 'week');
          assert.equal(await mismatch(windowDay - 29), 0, 'month');
        }
        const daily = await count(
          db,
          `select count(*) as n from (select killer_user_id, game, occurred_at / ${DAY} as day, count(*) as c, sum(headshot) as h
             from kills group by killer_user_id, game, occurred_at / ${DAY}) a
           left join frag_daily f on f.user_id = a.killer_user_id and f.game = a.game and f.day = a.day
           where f.kills is null or f.kills <> a.c or f.headshots <> a.h`,
        );
        assert.equal(daily, 0);
        assert.equal(
          await count(db, 'select count(*) as n from frag_daily'),
          await count(
            db,
            `select count(*) as n from (select distinct killer_user_id, game, occurred_at / ${DAY} from kills) x`,
          ),
        );
        assert.equal(await count(db, "select sum(kills) as n from frag_totals where period = 'all'"), 20_000);
        const deathMismatch = await count(
          db,
          `select count(*) as n from (select victim_user_id, game, count(*) as c from kills group by victim_user_id, game) a
           left join death_totals d on d.user_id = a.victim_user_id and d.game = a.game
           where d.deaths is null or d.deaths <> a.c`,
        );
        assert.equal(deathMismatch, 0, 'deaths per victim and game');
        assert.equal(await count(db, 'select sum(deaths) as n from death_totals'), 20_000);
        assert.equal(
          await count(db, "select sum(kills) as n from frag_totals where period = 'week'"),
          await count(db, `select count(*) as n from kills where occurred_at >= ${(windowDay - 6) * DAY}`),
        );
      });

      it('derives levels, achievements and ratings consistently', async () => {
        const users = await db.kysely
          .selectFrom('users')
          .select(['id', 'total_xp', 'level', 'achievements_count', 'username'])
          .execute();
        for (const u of users) assert.equal(u.level, levelForXp(u.total_xp), `level of user ${u.id}`);
        assert.equal(new Set(users.map((u) => u.username)).size, users.length);
        assert.equal(await count(db, 'select count(*) as n from achievements'), ACHIEVEMENTS.length);
        assert.equal(
          await count(
            db,
            `select count(*) as n from users u where u.achievements_count <>
               (select count(*) from user_achievements a where a.user_id = u.id)`,
          ),
          0,
        );
        assert.ok((await count(db, 'select count(*) as n from user_achievements')) > 500);
        // the achievement with the level-5 rule is held exactly by users at level 5 or more
        assert.equal(
          await count(
            db,
            `select count(*) as n from users u where (u.level >= 5) <> exists (select 1 from user_achievements ua
               join achievements a on a.id = ua.achievement_id where ua.user_id = u.id and a.code = 'level_5')`,
          ),
          0,
        );
        // the last history row of every rated player is their current rating; games and wins add up
        assert.equal(
          await count(
            db,
            `select count(*) as n from elo_ratings r where r.rating <> (select h.rating_after from elo_history h
               where h.user_id = r.user_id and h.game = r.game order by h.occurred_at desc, h.id desc limit 1)
               or r.games <> (select count(*) from elo_history h where h.user_id = r.user_id and h.game = r.game)`,
          ),
          0,
        );
        assert.equal(
          await count(
            db,
            `select count(*) as n from elo_history h join elo_history p on p.user_id = h.user_id and p.game = h.game
               and p.id = (select max(id) from elo_history q where q.user_id = h.user_id and q.game = h.game and q.id < h.id)
             where p.rating_after <> h.rating_before`,
          ),
          0,
          'each match starts from the previous rating',
        );
        assert.equal(await count(db, 'select count(*) as n from elo_ratings where wins > games'), 0);
        assert.equal(
          await count(
            db,
            "select count(*) as n from elo_history where game = 'cs2' and (select count(*) from elo_history h2 where h2.match_id = elo_history.match_id) <> 10",
          ),
          0,
        );
      });
    });
  });
}

import type { Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/** The published API's tables. Indexes follow the queries in each module's repo.ts. */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('users'), dialect)
      .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('avatar', 'varchar(255)', (c) => c.notNull())
      .addColumn('steam_id', 'varchar(20)', (c) => c.unique())
      .addColumn('total_xp', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('level', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('achievements_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('subscription', 'varchar(16)', (c) => c.notNull().defaultTo('none'))
      .addColumn('is_partner', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('users_total_xp').on('users').columns(['total_xp desc', 'id']).execute();

    await withId(db.schema.createTable('api_keys'), dialect)
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('prefix', 'varchar(16)', (c) => c.notNull())
      .addColumn('hash', 'char(64)', (c) => c.notNull().unique())
      .addColumn('tier', 'varchar(16)')
      .addColumn('quota', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

    await withId(db.schema.createTable('tournaments'), dialect)
      .addColumn('name', 'varchar(120)', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('max_teams', 'integer', (c) => c.notNull())
      .addColumn('starts_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('tournaments_status')
      .on('tournaments')
      .columns(['status', 'starts_at'])
      .execute();

    await db.schema
      .createTable('tournament_participants')
      .addColumn('tournament_id', 'integer', (c) =>
        c.notNull().references('tournaments.id').onDelete('cascade'),
      )
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('tournament_participants_pk', ['tournament_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('tournament_participants_user')
      .on('tournament_participants')
      .column('user_id')
      .execute();

    await withId(db.schema.createTable('game_servers'), dialect)
      .addColumn('name', 'varchar(120)', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('ip', 'varchar(64)', (c) => c.notNull())
      .addColumn('port', 'integer', (c) => c.notNull())
      .addColumn('query_port', 'integer')
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('players', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_players', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('map', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('game_servers_status')
      .on('game_servers')
      .columns(['status', 'game', 'id'])
      .execute();

    await withId(db.schema.createTable('forum_categories'), dialect)
      .addColumn('name', 'varchar(80)', (c) => c.notNull())
      .execute();

    await withId(db.schema.createTable('forum_threads'), dialect)
      .addColumn('category_id', 'integer', (c) => c.notNull().references('forum_categories.id'))
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('title', 'varchar(200)', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('forum_threads_recent')
      .on('forum_threads')
      .columns(['created_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('forum_threads_category')
      .on('forum_threads')
      .columns(['category_id', 'created_at desc', 'id desc'])
      .execute();

    await withId(db.schema.createTable('forum_posts'), dialect)
      .addColumn('thread_id', 'integer', (c) =>
        c.notNull().references('forum_threads.id').onDelete('cascade'),
      )
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('forum_posts_thread')
      .on('forum_posts')
      .columns(['thread_id', 'created_at', 'id'])
      .execute();
    await db.schema.createIndex('forum_posts_author').on('forum_posts').column('author_id').execute();

    await withId(db.schema.createTable('achievements'), dialect)
      .addColumn('code', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('name', 'varchar(80)', (c) => c.notNull())
      .addColumn('description', 'varchar(255)', (c) => c.notNull())
      .addColumn('icon', 'varchar(16)', (c) => c.notNull())
      .addColumn('category', 'varchar(32)', (c) => c.notNull())
      .addColumn('xp_reward', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('achievements_category')
      .on('achievements')
      .columns(['category', 'id'])
      .execute();

    await db.schema
      .createTable('user_achievements')
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('achievement_id', 'integer', (c) => c.notNull().references('achievements.id'))
      .addColumn('unlocked_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_achievements_pk', ['user_id', 'achievement_id'])
      .execute();

    await withId(db.schema.createTable('matches'), dialect, true)
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('server_id', 'integer', (c) => c.references('game_servers.id').onDelete('set null'))
      .addColumn('map', 'varchar(64)', (c) => c.notNull())
      .addColumn('team1_score', 'integer', (c) => c.notNull())
      .addColumn('team2_score', 'integer', (c) => c.notNull())
      .addColumn('winner', 'integer', (c) => c.notNull())
      .addColumn('ended_at', 'bigint', (c) => c.notNull())
      .execute();

    // Kills reference users and servers by id but without foreign keys: this is the hottest insert
    // path, and ingest resolves both before writing.
    await withId(db.schema.createTable('kills'), dialect, true)
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('server_id', 'integer', (c) => c.notNull())
      .addColumn('match_id', 'bigint')
      .addColumn('killer_user_id', 'integer', (c) => c.notNull())
      .addColumn('killer_steam_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('killer_name', 'varchar(64)', (c) => c.notNull())
      .addColumn('victim_user_id', 'integer', (c) => c.notNull())
      .addColumn('victim_steam_id', 'varchar(20)', (c) => c.notNull())
      .addColumn('victim_name', 'varchar(64)', (c) => c.notNull())
      .addColumn('weapon', 'varchar(32)', (c) => c.notNull())
      .addColumn('headshot', 'integer', (c) => c.notNull())
      .addColumn('distance', 'real', (c) => c.notNull())
      .addColumn('round_number', 'integer', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('kills_recent')
      .on('kills')
      .columns(['occurred_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('kills_game_recent')
      .on('kills')
      .columns(['game', 'occurred_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('kills_killer_recent')
      .on('kills')
      .columns(['killer_user_id', 'occurred_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('kills_victim_recent')
      .on('kills')
      .columns(['victim_user_id', 'occurred_at desc', 'id desc'])
      .execute();

    await db.schema
      .createTable('frag_daily')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('kills', 'integer', (c) => c.notNull())
      .addColumn('headshots', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('frag_daily_pk', ['user_id', 'game', 'day'])
      .execute();
    await db.schema.createIndex('frag_daily_day').on('frag_daily').column('day').execute();

    await db.schema
      .createTable('frag_totals')
      .addColumn('period', 'varchar(8)', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('kills', 'integer', (c) => c.notNull())
      .addColumn('headshots', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('frag_totals_pk', ['period', 'game', 'user_id'])
      .execute();
    await db.schema
      .createIndex('frag_totals_rank')
      .on('frag_totals')
      .columns(['period', 'kills desc', 'user_id', 'game'])
      .execute();
    await db.schema
      .createIndex('frag_totals_game_rank')
      .on('frag_totals')
      .columns(['period', 'game', 'kills desc', 'user_id'])
      .execute();

    await db.schema
      .createTable('elo_ratings')
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('rating', 'integer', (c) => c.notNull())
      .addColumn('games', 'integer', (c) => c.notNull())
      .addColumn('wins', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('elo_ratings_pk', ['user_id', 'game'])
      .execute();
    await db.schema
      .createIndex('elo_ratings_rank')
      .on('elo_ratings')
      .columns(['game', 'rating desc', 'user_id'])
      .execute();

    await withId(db.schema.createTable('elo_history'), dialect, true)
      .addColumn('match_id', 'bigint', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('rating_before', 'integer', (c) => c.notNull())
      .addColumn('rating_after', 'integer', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('elo_history_user')
      .on('elo_history')
      .columns(['user_id', 'game', 'occurred_at'])
      .execute();
    await db.schema.createIndex('elo_history_match').on('elo_history').column('match_id').execute();

    await db.schema
      .createTable('meta')
      .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    for (const table of [
      'meta',
      'elo_history',
      'elo_ratings',
      'frag_totals',
      'frag_daily',
      'kills',
      'matches',
      'user_achievements',
      'achievements',
      'forum_posts',
      'forum_threads',
      'forum_categories',
      'game_servers',
      'tournament_participants',
      'tournaments',
      'api_keys',
      'users',
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  };
}

import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connect.js';
import { withId } from './helpers.js';

/**
 * Clans (DESIGN.md, "Writes that are safe to retry"): the rules that must hold under concurrent
 * requests live in the database, not only in code.
 * - name and tag unique per game, case-insensitive: unique indexes on (game, lower(name)) and
 *   (game, lower(tag)); names and tags are ASCII, so lower() folds them alike on both databases;
 * - a user in at most one clan per game: members carry their clan's game (a composite foreign key
 *   keeps it equal to the clan's) under a unique (user_id, game);
 * - one owner per clan: a partial unique index on the owner rows;
 * - never more members than the clan allows: `member_count` moves with the member rows in the same
 *   transaction, checked against `max_members`.
 */
export function up(dialect: Dialect) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('clans'), dialect)
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('name', 'varchar(32)', (c) => c.notNull())
      .addColumn('tag', 'varchar(6)', (c) => c.notNull())
      .addColumn('description', 'varchar(500)', (c) => c.notNull().defaultTo(''))
      .addColumn('join_policy', 'varchar(8)', (c) => c.notNull())
      .addColumn('visibility', 'varchar(8)', (c) => c.notNull())
      .addColumn('max_members', 'integer', (c) => c.notNull())
      .addColumn('member_count', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('clans_id_game', ['id', 'game'])
      .addCheckConstraint('clans_join_policy', sql`join_policy in ('open', 'invite', 'closed')`)
      .addCheckConstraint('clans_visibility', sql`visibility in ('public', 'private')`)
      .addCheckConstraint('clans_member_count', sql`member_count >= 1 and member_count <= max_members`)
      .execute();
    await db.schema
      .createIndex('clans_game_name_unique')
      .on('clans')
      .unique()
      .expression(sql`game, lower(name)`)
      .execute();
    await db.schema
      .createIndex('clans_game_tag_unique')
      .on('clans')
      .unique()
      .expression(sql`game, lower(tag)`)
      .execute();
    // the public list: most members first
    await db.schema
      .createIndex('clans_listing')
      .on('clans')
      .columns(['visibility', 'member_count desc', 'id'])
      .execute();

    await db.schema
      .createTable('clan_members')
      .addColumn('clan_id', 'integer', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'varchar(8)', (c) => c.notNull())
      .addColumn('joined_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('clan_members_pk', ['clan_id', 'user_id'])
      .addForeignKeyConstraint('clan_members_clan', ['clan_id', 'game'], 'clans', ['id', 'game'], (fk) =>
        fk.onDelete('cascade'),
      )
      .addCheckConstraint('clan_members_role', sql`role in ('owner', 'officer', 'member')`)
      .execute();
    await db.schema
      .createIndex('clan_members_one_per_game')
      .on('clan_members')
      .unique()
      .columns(['user_id', 'game'])
      .execute();
    await db.schema
      .createIndex('clan_members_one_owner')
      .on('clan_members')
      .unique()
      .column('clan_id')
      .where(sql.ref('role'), '=', sql.lit('owner'))
      .execute();

    await db.schema
      .createTable('clan_invites')
      .addColumn('clan_id', 'integer', (c) => c.notNull().references('clans.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('clan_invites_pk', ['clan_id', 'user_id'])
      .execute();
    // a user's pending invites
    await db.schema
      .createIndex('clan_invites_user')
      .on('clan_invites')
      .columns(['user_id', 'created_at desc'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('clan_invites').ifExists().execute();
    await db.schema.dropTable('clan_members').ifExists().execute();
    await db.schema.dropTable('clans').ifExists().execute();
  };
}

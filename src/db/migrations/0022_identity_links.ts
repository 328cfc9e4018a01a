import type { Kysely } from 'kysely';

/**
 * Identity links (issue 26): a Minecraft or Epic Online Services player id attached to one hub
 * user, so what a plugin reports of that player lands on the user's profile. `link_codes` are the
 * short one-use codes that make a link: made by a signed-in user (typed in game) or by a plugin for
 * a player (typed in the portal). Only the SHA-256 of a code is stored (a code is never listed);
 * a used or expired one is deleted. Numbered 0022: 0021 is reserved by the plugin command queue.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('identity_links')
      .addColumn('platform', 'varchar(16)', (c) => c.notNull())
      .addColumn('player_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      // the in-game name when the link was made (shown in the portal)
      .addColumn('name', 'varchar(64)', (c) => c.notNull())
      .addColumn('server_id', 'integer')
      .addColumn('linked_at', 'bigint', (c) => c.notNull())
      // one hub user per identity: the primary key is what makes a second link a 409
      .addPrimaryKeyConstraint('identity_links_pk', ['platform', 'player_id'])
      .execute();
    await db.schema.createIndex('identity_links_user').on('identity_links').columns(['user_id']).execute();

    await db.schema
      .createTable('link_codes')
      .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
      // exactly one side is set: the user who asked for it, or the player a plugin asked for
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('platform', 'varchar(16)')
      .addColumn('player_id', 'varchar(64)')
      .addColumn('name', 'varchar(64)')
      .addColumn('server_id', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('link_codes_expiry').on('link_codes').columns(['expires_at']).execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('link_codes').ifExists().execute();
    await db.schema.dropTable('identity_links').ifExists().execute();
  };
}

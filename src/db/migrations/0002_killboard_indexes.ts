import type { Kysely } from 'kysely';

/**
 * The kill feed filtered by player AND game reads the killer and victim ranges of one user in one
 * game, newest first. The per-user indexes of 0001 would have to visit every kill of that user in
 * other games to find LIMIT rows of this one; these keep it one bounded range scan per side.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createIndex('kills_killer_game_recent')
      .on('kills')
      .columns(['killer_user_id', 'game', 'occurred_at desc', 'id desc'])
      .execute();
    await db.schema
      .createIndex('kills_victim_game_recent')
      .on('kills')
      .columns(['victim_user_id', 'game', 'occurred_at desc', 'id desc'])
      .execute();
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropIndex('kills_victim_game_recent').ifExists().execute();
    await db.schema.dropIndex('kills_killer_game_recent').ifExists().execute();
  };
}

import type { Kysely, NotNull } from 'kysely';
import type { Database } from '../../db/types.js';

/** What the demo server reads: the hub accounts it seats. */
export function demoServerRepo(db: Kysely<Database>) {
  return {
    /** The first `limit` accounts linked to a Steam id, by id: on the demo data, seeded players. */
    playersWithSteamIds(limit: number): Promise<{ id: number; username: string; steam_id: string }[]> {
      return db
        .selectFrom('users')
        .select(['id', 'username', 'steam_id'])
        .where('steam_id', 'is not', null)
        .orderBy('id')
        .limit(limit)
        .$narrowType<{ steam_id: NotNull }>()
        .execute();
    },
  };
}

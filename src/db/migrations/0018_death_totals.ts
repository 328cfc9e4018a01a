import { sql, type Kysely } from 'kysely';

/**
 * All-time deaths per (player, game), kept beside `frag_totals` by the same ingest transaction that
 * writes the kills, so `GET /v1/users/{id}/stats` reads one primary-key range instead of counting the
 * player's deaths in `kills` on every request. Filled here from the kills already stored.
 */
export function up() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('death_totals')
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('game', 'varchar(16)', (c) => c.notNull())
      .addColumn('deaths', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('death_totals_pk', ['user_id', 'game'])
      .execute();
    await sql`insert into death_totals (user_id, game, deaths)
      select victim_user_id, game, count(*) from kills group by victim_user_id, game`.execute(db);
  };
}

export function down() {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.dropTable('death_totals').ifExists().execute();
  };
}

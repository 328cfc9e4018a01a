import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeElo } from '../src/modules/ingest/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

for (const dialect of testDialects()) {
  describe(`Elo ratings written by ingest (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());

    const newMatch = () =>
      testDb.db.kysely
        .insertInto('matches')
        .values({
          game: 'cs2',
          server_id: null,
          map: 'de_dust2',
          team1_score: 13,
          team2_score: 7,
          winner: 1,
          ended_at: 1,
        })
        .returning('id')
        .executeTakeFirstOrThrow();

    it('inserts a first rating and replaces it with the next match', async () => {
      const made = factories(testDb.db);
      const [a, b] = [await made.makeUser(), await made.makeUser()];
      const first = await newMatch();
      await testDb.db.kysely.transaction().execute((trx) =>
        writeElo(
          trx,
          'cs2',
          first.id,
          [
            { userId: b.id, before: 1000, after: 950, games: 1, wins: 0 },
            { userId: a.id, before: 1000, after: 1050, games: 1, wins: 1 },
          ],
          10,
        ),
      );
      const second = await newMatch();
      await testDb.db.kysely
        .transaction()
        .execute((trx) =>
          writeElo(
            trx,
            'cs2',
            second.id,
            [{ userId: a.id, before: 1050, after: 1090, games: 2, wins: 2 }],
            20,
          ),
        );
      const rows = await testDb.db.kysely
        .selectFrom('elo_ratings')
        .select(['user_id', 'rating', 'games', 'wins', 'updated_at'])
        .orderBy('user_id')
        .execute();
      assert.deepEqual(rows, [
        { user_id: a.id, rating: 1090, games: 2, wins: 2, updated_at: 20 },
        { user_id: b.id, rating: 950, games: 1, wins: 0, updated_at: 10 },
      ]);
    });
  });
}

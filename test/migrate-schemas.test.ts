import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import { dropTable, migrateAgain, openTestDb, testDialects } from './helpers/db.js';

// Kysely's migrator once found another schema's bookkeeping tables and skipped creating its own.
describe('migrations beside another PostgreSQL schema', { skip: !process.env.TEST_DATABASE_URL }, () => {
  it('migrates a fresh schema while another migrated schema exists', async () => {
    const first = await openTestDb('postgres');
    try {
      const second = await openTestDb('postgres');
      try {
        const tables = await second.db.kysely.introspection.getTables({ withInternalKyselyTables: true });
        const own = tables.filter((t) => t.schema === second.schema).map((t) => t.name);
        assert.ok(own.includes('kysely_migration_lock'), own.join(', '));
        assert.ok(own.includes('users'));
      } finally {
        await second.drop();
      }
    } finally {
      await first.drop();
    }
  });
});

// Features land in parallel with migration numbers reserved up front: a database migrated before
// a lower-numbered migration landed (0009 applied, 0005 not yet written) must take it later.
describe('a migration that lands after higher-numbered ones ran', () => {
  for (const dialect of testDialects()) {
    it(`is applied to an existing database (${dialect})`, async () => {
      const testDb = await openTestDb(dialect);
      try {
        const { kysely } = testDb.db;
        await dropTable(testDb, 'portal_flashes');
        await sql`delete from kysely_migration where name = '0009_portal_flashes'`.execute(kysely);
        const result = await migrateAgain(testDb);
        assert.deepEqual(
          result.results?.map((r) => [r.migrationName, r.status]),
          [['0009_portal_flashes', 'Success']],
        );
        await sql`select count(*) from portal_flashes`.execute(kysely);
      } finally {
        await testDb.drop();
      }
    });
  }
});

// Every CLI command migrates on start. Kysely's migrator scans the columns of every table of
// every schema, looking each schema up by name, so a schema another process dropped mid-scan
// failed it ("schema … does not exist": `hub economy grant` exited 1 in a full PostgreSQL run).
// An up-to-date database must not run that scan: it reads only its own migration table.
describe('migrating an up-to-date database', () => {
  for (const dialect of testDialects()) {
    it(`reads only its own migration table, no catalog scan (${dialect})`, async () => {
      const testDb = await openTestDb(dialect);
      try {
        const statements: string[] = [];
        const kysely = testDb.db.kysely.withPlugin({
          transformQuery: (args) => {
            statements.push(JSON.stringify(args.node));
            return args.node;
          },
          transformResult: (args) => Promise.resolve(args.result),
        });
        const result = await migrateToLatest({ ...testDb.db, kysely }, { schema: testDb.schema });
        assert.deepEqual(result.results, []);
        assert.ok(statements.length <= 2, `${statements.length} statements:\n${statements.join('\n')}`);
        for (const s of statements) assert.doesNotMatch(s, /pg_attribute|pg_namespace|kysely_migration_lock/);
      } finally {
        await testDb.drop();
      }
    });
  }
});

describe('0018_death_totals on a database that already holds kills', () => {
  for (const dialect of testDialects()) {
    it(`fills every player's deaths per game from the stored kills (${dialect})`, async () => {
      const testDb = await openTestDb(dialect);
      try {
        const { kysely } = testDb.db;
        await dropTable(testDb, 'death_totals');
        await sql`delete from kysely_migration where name = '0018_death_totals'`.execute(kysely);
        const kill = (victim: number, game: string) => ({
          game,
          server_id: 1,
          match_id: null,
          killer_user_id: 1,
          killer_steam_id: '76561198000000001',
          killer_name: 'one',
          victim_user_id: victim,
          victim_steam_id: '76561198000000002',
          victim_name: 'two',
          weapon: 'ak47',
          headshot: 0,
          distance: 1,
          round_number: 1,
          occurred_at: 1_700_000_000_000,
        });
        await kysely
          .insertInto('kills')
          .values([kill(7, 'cs2'), kill(7, 'cs2'), kill(7, 'rust'), kill(8, 'cs2')])
          .execute();
        const result = await migrateAgain(testDb);
        assert.deepEqual(
          result.results?.map((r) => [r.migrationName, r.status]),
          [['0018_death_totals', 'Success']],
        );
        const rows = await kysely
          .selectFrom('death_totals')
          .select(['user_id', 'game', 'deaths'])
          .orderBy('user_id')
          .orderBy('game')
          .execute();
        assert.deepEqual(rows, [
          { user_id: 7, game: 'cs2', deaths: 2 },
          { user_id: 7, game: 'rust', deaths: 1 },
          { user_id: 8, game: 'cs2', deaths: 1 },
        ]);
      } finally {
        await testDb.drop();
      }
    });
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openTestDb } from './helpers/db.js';

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

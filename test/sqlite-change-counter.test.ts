import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { WalIndexWatch } from '../src/db/wal-index.js';
import { openTestDb, type TestDb } from './helpers/db.js';

/**
 * The API-key cache trusts the reader's change counter: if a commit could leave it unchanged, a
 * revoked key would keep working. These run on a real SQLite file in WAL mode.
 */
describe('SQLite reader change counter', () => {
  let testDb: TestDb;
  let file: string;
  const counter = () => {
    const reader = testDb.db.reader;
    assert.ok(reader, 'a file database has a reader connection');
    return reader.changeCounter();
  };
  const commit = (note: string) =>
    sql`insert into api_keys (name, prefix, hash, tier, created_at) values (${note}, 'ghk_xxxxxx', ${`${note}-${Math.random()}`}, 'free', 0)`.execute(
      testDb.db.kysely,
    );

  before(async () => {
    testDb = await openTestDb('sqlite');
    file = testDb.url.slice('sqlite:'.length);
    counter();
  });
  after(() => testDb.drop());

  it('reads the WAL index of the database file', () => {
    const watch = WalIndexWatch.open(file);
    assert.ok(watch, `${file}-shm exists once the database is open in WAL mode`);
    watch.close();
  });

  it('stays put while nothing is committed', () => {
    const first = counter();
    for (let i = 0; i < 100; i++) assert.equal(counter(), first);
  });

  it("moves on every commit of this process's writer", async () => {
    for (let i = 0; i < 20; i++) {
      const before = counter();
      await commit(`writer ${i}`);
      assert.notEqual(counter(), before, `commit ${i}`);
    }
  });

  /** Runs one statement on the database file from a child process, and waits for it to exit. */
  const commitInAnotherProcess = (statement: string) => {
    const require = createRequire(import.meta.url);
    const script = `const SQLite = require(${JSON.stringify(require.resolve('better-sqlite3'))});
const db = new SQLite(${JSON.stringify(file)});
db.pragma('busy_timeout = 5000');
db.prepare(${JSON.stringify(statement)}).run();
db.close();`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
  };

  it('moves on a commit by another process', () => {
    const before = counter();
    commitInAnotherProcess('update api_keys set revoked_at = 1 where revoked_at is null');
    assert.notEqual(counter(), before);
  });

  it('moves on commits after the WAL is checkpointed and restarted from its first frame', async () => {
    for (let i = 0; i < 10; i++) {
      testDb.db.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
      const before = counter();
      await commit(`after checkpoint ${i}`);
      assert.notEqual(counter(), before, `commit after checkpoint ${i}`);
    }
  });

  it('is read once per event-loop turn, and again at once after a statement of this process', async () => {
    const reader = testDb.db.reader;
    assert.ok(reader);
    const turnEnded = () => new Promise((resolve) => setImmediate(resolve));
    await turnEnded();

    // another process commits: seen from the next turn
    const first = reader.changeCounterThisTurn();
    commitInAnotherProcess('update api_keys set revoked_at = 2 where revoked_at is not null');
    assert.equal(reader.changeCounterThisTurn(), first, 'one read per turn');
    await turnEnded();
    const second = reader.changeCounterThisTurn();
    assert.notEqual(second, first, 'the next turn reads again');

    // this process commits: seen in the same turn
    let ended = false;
    setImmediate(() => (ended = true));
    await commit('same turn');
    assert.equal(ended, false, 'the commit finished within the turn');
    assert.notEqual(reader.changeCounterThisTurn(), second);
  });
});

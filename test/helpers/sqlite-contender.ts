/**
 * A second process on the same SQLite file (run with `node --import tsx`): increments the `meta`
 * row `contender` `count` times, each time reading it, yielding to the event loop (so the other
 * process can commit in between) and writing it back.
 *   mode `helper`:   through writeTransaction (BEGIN IMMEDIATE)
 *   mode `deferred`: through a plain BEGIN, the way Kysely's transaction() begins
 * It prints `ready`, starts on a line from stdin (so both processes run at once) and prints one
 * JSON line: { done, busy } (busy = transactions lost to "database is locked").
 */
import { sql, type Kysely } from 'kysely';
import { connect } from '../../src/db/connect.js';
import type { Database } from '../../src/db/types.js';
import { writeTransaction } from '../../src/db/write-transaction.js';

const [url = '', mode = 'helper', countArg = '50'] = process.argv.slice(2);
const count = Number(countArg);
const db = connect(url);
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

async function increment(trx: Kysely<Database>): Promise<void> {
  const row = await trx.selectFrom('meta').select('value').where('key', '=', 'contender').executeTakeFirst();
  await tick();
  await trx
    .updateTable('meta')
    .set({ value: String(Number(row?.value ?? 0) + 1) })
    .where('key', '=', 'contender')
    .execute();
}

console.log('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
let done = 0;
let busy = 0;
for (let i = 0; i < count; i++) {
  try {
    if (mode === 'helper') await writeTransaction(db.kysely, increment);
    else {
      await db.kysely.connection().execute(async (conn) => {
        await sql`begin`.execute(conn);
        try {
          await increment(conn);
          await sql`commit`.execute(conn);
        } catch (err) {
          await sql`rollback`.execute(conn);
          throw err;
        }
      });
    }
    done++;
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) busy++;
    else throw err;
  }
}
await db.close();
console.log(JSON.stringify({ done, busy }));

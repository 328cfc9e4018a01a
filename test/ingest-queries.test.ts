import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ingestPipeline, type IngestPipeline } from '../src/modules/ingest/pipeline.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { inRound, registerServer, stamp } from './helpers/ingest.js';
import { queryCounter } from './helpers/query-counter.js';

/**
 * The pipeline's work is grouped per batch (pipeline.ts): a batch costs the same few statements
 * whether it holds 10 lines or 1,000 and 2 players or 40. Each statement is counted by what it
 * does (its kind and table, or the start of its SQL); a statement run once per line, per kill or
 * per player shows up as one label repeated dozens of times.
 */
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);

/** Economy's mintRewards writes one ledger transaction per reward (its own module, not ingest). */
const NOT_INGEST = /economy_/;
/** Kills, outbox events and fingerprints are inserted in chunks (1,000 to 5,000 rows each). */
const MAX_PER_LABEL = 3;

const killLine = (n: number, players: number, at: number) => {
  const a = n % players;
  const b = (a + 1 + (n % (players - 1))) % players;
  return `${stamp(at)}"P${a}<${a + 2}><[U:1:${7000 + a}]><CT>" [0 0 0] killed "P${b}<${b + 2}><[U:1:${7000 + b}]><TERRORIST>" [0 0 0] with "ak47"${n % 3 === 0 ? ' (headshot)' : ''}`;
};

for (const dialect of testDialects()) {
  describe(`ingest: statements per batch (${dialect})`, () => {
    let testDb: TestDb;
    let pipeline: IngestPipeline;
    const count = queryCounter();
    before(async () => {
      testDb = await openTestDb(dialect);
      pipeline = ingestPipeline(
        { ...testDb.db, kysely: testDb.db.kysely.withPlugin(count.plugin) },
        () => NOW,
      );
    });
    after(() => testDb.drop());

    /** One log batch of `kills` kills among `players` players; returns the labels of its statements. */
    const batch = async (server: { id: number }, seq: number, kills: number, players: number) => {
      const at = NOW - 3_600_000 + seq * 1000;
      const lines = inRound(
        at,
        Array.from({ length: kills }, (_, i) => killLine(seq * kills + i, players, at)),
      );
      count.labels.length = 0;
      const result = await pipeline.ingestLogText({ id: server.id, game: 'cs2' }, lines.join('\n'));
      assert.equal(result.kills, kills, 'every kill of the batch is stored');
      return [...count.labels];
    };
    const tally = (labels: string[]) => {
      const n = new Map<string, number>();
      for (const l of labels) if (!NOT_INGEST.test(l)) n.set(l, (n.get(l) ?? 0) + 1);
      return n;
    };

    it('a batch of 1,000 kills among 40 players runs each statement at most a few times', async () => {
      const server = await registerServer(testDb.db, 'cs2');
      await batch(server, 0, 40, 40); // creates the 40 profiles
      const labels = await batch(server, 1, 1000, 40);
      const repeated = [...tally(labels)].filter(([, n]) => n > MAX_PER_LABEL);
      assert.deepEqual(repeated, [], `statements repeated per line or per player:\n${labels.join('\n')}`);
      assert.ok(
        labels.some((l) => l.includes('update users')),
        'player progress is written',
      );
    });

    it('the statements do not grow with the lines or the players of a batch', async () => {
      const server = await registerServer(testDb.db, 'cs2');
      await batch(server, 0, 40, 40);
      const small = tally(await batch(server, 1, 10, 2));
      const large = tally(await batch(server, 2, 400, 40));
      const total = (n: Map<string, number>) => [...n.values()].reduce((s, v) => s + v, 0);
      // the large batch may unlock achievements or level players up that the small one does not:
      // at most those few inserts more
      assert.ok(total(large) <= total(small) + 3, `${total(small)} statements, then ${total(large)}`);
    });
  });
}

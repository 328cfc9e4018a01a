import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { hostileLine, PROPERTY_NAMES, token, when as whenNear } from './helpers/hostile-lines.js';
import { postEvents, postLogs, registerServer } from './helpers/ingest.js';

/**
 * Property tests over the HTTP ingest paths with hostile content: log lines built from real
 * line shapes whose every slot may hold a number of hundreds of digits, a JavaScript property
 * name, quotes, `<`, `>`, Steam-id look-alikes or any unicode, stamped with any date; JSON events
 * of any type and shape. No batch may fail (no 5xx), and every line or
 * event is accounted for: accepted, a duplicate, or rejected with a reason.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);
const line = hostileLine(NOW);
const when = whenNear(NOW);
/** Lines as the service splits a body: by `\n`, a trailing `\r` dropped, empty ones skipped. */
const counted = (lines: string[]) =>
  lines
    .join('\n')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l !== '' && l !== '\0').length;

const anyEvent = fc.oneof(
  fc.anything(),
  fc.record(
    {
      type: fc.oneof(
        fc.constantFrom('kill', 'match_result', 'player_session', ...PROPERTY_NAMES),
        fc.string(),
      ),
      client_id: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...PROPERTY_NAMES), fc.integer()),
      occurred_at: fc.oneof(
        when.map((at) => new Date(at).toISOString()),
        fc.string(),
      ),
      ended_at: fc.oneof(
        when.map((at) => new Date(at).toISOString()),
        fc.string(),
      ),
      killer: fc.record({ steam_id: fc.oneof(token, fc.constant('76561198000000001')), name: token }),
      victim: fc.record({ steam_id: fc.oneof(token, fc.constant('76561198000000002')), name: token }),
      weapon: token,
      distance: fc.oneof(fc.double(), fc.constant(1e308)),
      round_number: fc.oneof(fc.integer(), fc.double()),
      map: token,
      team1: fc.array(fc.record({ steam_id: token, name: token, participation: fc.double() }), {
        maxLength: 3,
      }),
      team2: fc.array(fc.record({ steam_id: token, name: token }), { maxLength: 3 }),
      team1_score: fc.oneof(fc.integer(), fc.double()),
      team2_score: fc.integer(),
    },
    { requiredKeys: ['type'] },
  ),
);

for (const dialect of testDialects()) {
  describe(`ingest under hostile input (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => NOW });
    });
    after(() => ctx.close());

    it('log lines: no batch fails, every line is accepted, a duplicate or rejected with a reason', async () => {
      const servers = [
        await registerServer(ctx.testDb.db, 'cs2'),
        await registerServer(ctx.testDb.db, 'cs16'),
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.array(line, { minLength: 1, maxLength: 30 }),
          fc.boolean(),
          async (lines, cs16) => {
            const server = servers[cs16 ? 1 : 0] ?? servers[0];
            if (!server) throw new Error('no server');
            const res = await postLogs(ctx, server.token, lines);
            assert.equal(res.statusCode, 200, res.body);
            const r = json<IngestResultBody>(res);
            assert.equal(r.accepted + r.duplicates + r.rejected, counted(lines));
            for (const e of r.errors) assert.ok(e.reason.length > 0 && e.line !== undefined);
          },
        ),
        { numRuns: RUNS },
      );
    });

    it('JSON events: no batch fails, every event is accepted, a duplicate or rejected with a reason', async () => {
      const rust = await registerServer(ctx.testDb.db, 'rust');
      await fc.assert(
        fc.asyncProperty(fc.array(anyEvent, { minLength: 1, maxLength: 20 }), async (events) => {
          const res = await postEvents(ctx, rust.token, events);
          assert.ok(res.statusCode < 500, res.body);
          if (res.statusCode !== 200) return;
          const r = json<IngestResultBody>(res);
          assert.equal(r.accepted + r.duplicates + r.rejected, events.length);
        }),
        { numRuns: RUNS },
      );
    });
  });
}

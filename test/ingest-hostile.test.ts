import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { IngestResultBody } from '../src/modules/ingest/routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { postEvents, postLogs, registerServer, stamp } from './helpers/ingest.js';

/**
 * Property tests over the HTTP ingest paths with hostile content: log lines built from real
 * line shapes whose every slot may hold a number of hundreds of digits, a JavaScript property
 * name, quotes, `<`, `>`, Steam-id look-alikes or any unicode, stamped with any date; JSON events
 * of any type and shape. No batch may fail (no 5xx), and every line or
 * event is accounted for: accepted, a duplicate, or rejected with a reason.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const NOW = Date.UTC(2026, 10, 21, 20, 0, 0);
const PROPERTY_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'];

const hugeNumber = fc.integer({ min: 1, max: 600 }).map((n) => `${n % 2 ? '-' : ''}${'9'.repeat(n)}`);
const token = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    ...PROPERTY_NAMES,
    '"',
    '<',
    '>',
    '><',
    '"x<1><[U:1:7]><CT>"',
    ' killed ',
    'STEAM_0:1:5',
    'BOT',
    '',
  ),
  hugeNumber,
  fc.integer().map(String),
  fc.double().map(String),
);
const when = fc.oneof(
  fc.integer({ min: NOW - 10 * 86_400_000, max: NOW + 3_600_000 }),
  fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) }),
);
const player = fc
  .tuple(
    token,
    token,
    fc.constantFrom('[U:1:12]', 'STEAM_0:0:7', 'BOT', '[U:1:99999999999999]'),
    token,
    token,
  )
  .map(([name, uid, id, alt, team]) => `"${name}<${uid}><${id === 'BOT' ? alt : id}><${team}>"`);
const body = fc.oneof(
  fc
    .tuple(player, token, token, token, player, token, token)
    .map(([a, x, y, z, b, w, f]) => `${a} [${x} ${y} ${z}] killed ${b} [0 0 0] with "${w}" (${f})`),
  fc.tuple(player, token).map(([a, t]) => `${a} say "${t}"`),
  fc.tuple(player, token).map(([a, t]) => `${a} changed name to "${t}"`),
  fc.tuple(player, token).map(([a, t]) => `${a} switched from team <${t}> to <CT>`),
  fc.tuple(token, token).map(([ct, t]) => `Team "CT" triggered "CTs_Win" (CT "${ct}") (T "${t}")`),
  fc
    .tuple(token, token, token)
    .map(([m, ct, t]) => `Game Over: competitive ${m} de_x score ${ct}:${t} after 9 min`),
  fc
    .tuple(token, token, token)
    .map(([ct, t, n]) => `MatchStatus: Score: ${ct}:${t} on map "x" RoundsPlayed: ${n}`),
  fc.constantFrom(
    'World triggered "Round_Start"',
    'World triggered "Round_End"',
    'World triggered "Match_Start" on "de_dust2"',
  ),
  token.map((t) => `World triggered "${t}"`),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
);
const line = fc.oneof(
  fc.tuple(when, body).map(([at, b]) => `${stamp(at)}${b}`),
  fc.tuple(hugeNumber, body).map(([y, b]) => `L 11/21/${y} - 19:00:00: ${b}`),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
);
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

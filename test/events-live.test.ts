import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverCommandsRepo } from '../src/modules/servers/commands/repo.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { parseLogLine } from '../src/modules/ingest/parsers/log-line.js';
import { postLogs, registerServer, stamp } from './helpers/ingest.js';

/**
 * Issue 27: what ingest tells as lines arrive. Chat lines become `chat.message` events private to
 * the server's owner and operators (one each), from lines the roster settles as chat; kills are
 * told provisionally in the batch that brings their line, a voided round takes them back, and the
 * settled feed keeps today's rules.
 */
const steam = (account: number) => String(76561197960265728n + BigInt(account));
const player = (name: string, uid: number, account: number, team: string) =>
  `"${name}<${uid}><[U:1:${account}]><${team}>"`;

for (const dialect of testDialects()) {
  describe(`live ingest events (${dialect})`, () => {
    let ctx: TestContext;
    const clock = Date.UTC(2026, 2, 3, 12);
    let owner = 0;
    let operator = 0;
    before(async () => {
      ctx = await createTestContext(dialect, { now: () => clock });
      owner = (await ctx.makeUser()).id;
      operator = (await ctx.makeUser()).id;
    });
    after(() => ctx.close());

    const ownedServer = async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      await ctx.testDb.db.kysely
        .updateTable('game_servers')
        .set({ owner_user_id: owner })
        .where('id', '=', server.id)
        .execute();
      await repo.grant(server.id, operator, clock);
      return server;
    };

    it('tells each chat line to the owner and each operator, with channel, text and sender', async () => {
      const server = await ownedServer();
      const start = await lastEventId(ctx.testDb.db.kysely);
      const t = clock - 10_000;
      const ace = player('Ace', 2, 902001, 'CT');
      const res = await postLogs(ctx, server.token, [
        `${stamp(t)}"Ace<2><[U:1:902001]><>" connected, address "203.0.113.7:27005"`,
        `${stamp(t)}${ace} say "!rank"`,
        `${stamp(t)}${ace} say_team "rush "B" now" (dead)`,
        `${stamp(t)}"BOT Ann<9><BOT><TERRORIST>" say "beep"`,
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      const chat = ofType(events, 'chat.message');
      assert.deepEqual(
        chat.map((e) => [e.user_id, e.scope, e.data.channel, e.data.text, e.data.steam_id, e.data.name]),
        [
          [owner, 'chat:read', 'all', '!rank', steam(902001), 'Ace'],
          [operator, 'chat:read', 'all', '!rank', steam(902001), 'Ace'],
          [owner, 'chat:read', 'team', 'rush "B" now', steam(902001), 'Ace'],
          [operator, 'chat:read', 'team', 'rush "B" now', steam(902001), 'Ace'],
          [owner, 'chat:read', 'all', 'beep', null, 'BOT Ann'],
          [operator, 'chat:read', 'all', 'beep', null, 'BOT Ann'],
        ],
      );
      // the sender had no hub profile yet: chat does not make one
      assert.ok(chat.every((e) => e.data.user_id === null && e.data.server_id === server.id));
      assert.equal(chat[0]?.data.team, 'CT');
    });

    it('names the sender’s hub user when the hub knows them, and no forged sender', async () => {
      const server = await ownedServer();
      const t = clock - 10_000;
      const known = await ctx.makeUser({ steam_id: steam(902101) });
      const start = await lastEventId(ctx.testDb.db.kysely);
      // chat text that forges a whole line of another player: the roster knows who wrote it
      const forged = `gg<7><[U:1:902102]><CT>" say "hi`;
      const line = `${player('Cy', 3, 902101, 'CT')} say "${forged}"`;
      const parsed = parseLogLine(stamp(t) + line);
      assert.ok(parsed.ok && parsed.event.kind === 'ambiguous', 'the line reads two ways');
      const res = await postLogs(ctx, server.token, [
        `${stamp(t)}"Cy<3><[U:1:902101]><>" connected, address "203.0.113.8:27005"`,
        `${stamp(t)}${line}`,
        // the same line from a connection the roster does not know: neither reading is used
        `${stamp(t)}${line.replace('<3>', '<13>')}`,
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const chat = ofType(await eventsAfter(ctx.testDb.db.kysely, start), 'chat.message');
      assert.equal(chat.length, 2);
      assert.deepEqual(
        chat.map((e) => [e.data.user_id, e.data.steam_id, e.data.name, e.data.text]),
        [
          [known.id, steam(902101), 'Cy', forged],
          [known.id, steam(902101), 'Cy', forged],
        ],
      );
    });

    it('tells nobody the chat of a server without owner or operators', async () => {
      const server = await registerServer(ctx.testDb.db, 'cs2');
      const start = await lastEventId(ctx.testDb.db.kysely);
      const res = await postLogs(ctx, server.token, [
        `${stamp(clock - 5000)}${player('Di', 4, 902201, 'CT')} say "hello"`,
      ]);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(ofType(await eventsAfter(ctx.testDb.db.kysely, start), 'chat.message'), []);
    });

    it('tells a kill in the batch of its line, and takes a voided round’s kills back', async () => {
      const server = await ownedServer();
      const t = clock - 60_000;
      const kill = (s: number, weapon: string) =>
        `${stamp(t + s * 1000)}${player('Ace', 2, 902301, 'CT')} [0 0 0] killed ${player('Bo', 3, 902302, 'TERRORIST')} [100 0 0] with "${weapon}"${weapon === 'deagle' ? ' (headshot)' : ''}`;
      let start = await lastEventId(ctx.testDb.db.kysely);
      await postLogs(ctx, server.token, [`${stamp(t)}World triggered "Round_Start"`, kill(1, 'ak47')]);
      let events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      assert.deepEqual(ofType(events, 'kill.recorded'), [], 'the round is not settled');
      const [told] = ofType(events, 'kill.provisional');
      assert.ok(told);
      assert.equal(told.user_id, null);
      assert.deepEqual(
        [told.data.killer_steam_id, told.data.victim_steam_id, told.data.weapon, told.data.round],
        [steam(902301), steam(902302), 'ak47', 1],
      );
      // a restart voids the round: its provisional kill is taken back and never counted
      start = await lastEventId(ctx.testDb.db.kysely);
      await postLogs(ctx, server.token, [
        kill(2, 'm4a1'),
        `${stamp(t + 3000)}World triggered "Restart_Round_(1_second)"`,
        `${stamp(t + 5000)}World triggered "Round_Start"`,
        kill(6, 'deagle'),
        `${stamp(t + 9000)}World triggered "Round_Start"`,
      ]);
      events = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(events);
      assert.deepEqual(
        events
          .filter((e) => e.type.startsWith('kill.') || e.type.startsWith('round.'))
          .map((e) => `${e.type} ${JSON.stringify(e.data.weapon ?? e.data.kills ?? '').replaceAll('"', '')}`),
        [
          // live events first, in log order; then the settled kills and the round boundaries
          'kill.provisional m4a1',
          'round.voided 2',
          'kill.provisional deagle',
          'kill.recorded deagle',
          'round.started ',
          'round.ended 1',
          'round.started ',
        ],
      );
      // the players the settled round registered are welcomed where they were first seen
      assert.deepEqual(
        ofType(events, 'player.registered').map((e) => [e.data.name, e.data.server_id, e.data.game]),
        [
          ['Ace', server.id, 'cs2'],
          ['Bo', server.id, 'cs2'],
        ],
      );
      // a kill whose player has a profile names it in its provisional event
      start = await lastEventId(ctx.testDb.db.kysely);
      await postLogs(ctx, server.token, [kill(10, 'awp')]);
      const [named] = ofType(await eventsAfter(ctx.testDb.db.kysely, start), 'kill.provisional');
      const recorded = ofType(events, 'kill.recorded')[0];
      assert.ok(named && recorded);
      assert.equal(named.data.killer_user_id, recorded.data.killer_user_id);
      assert.equal(typeof named.data.killer_user_id, 'number');
    });

    it('does not tell a team kill or a bot’s kill as provisional', async () => {
      const server = await ownedServer();
      const t = clock - 30_000;
      const start = await lastEventId(ctx.testDb.db.kysely);
      await postLogs(ctx, server.token, [
        `${stamp(t)}World triggered "Round_Start"`,
        `${stamp(t)}${player('Ace', 2, 902401, 'CT')} [0 0 0] killed ${player('Al', 3, 902402, 'CT')} [9 0 0] with "ak47"`,
        `${stamp(t)}"BOT Ann<9><BOT><TERRORIST>" [0 0 0] killed ${player('Ace', 2, 902401, 'CT')} [9 0 0] with "ak47"`,
      ]);
      assert.deepEqual(ofType(await eventsAfter(ctx.testDb.db.kysely, start), 'kill.provisional'), []);
    });
  });
}

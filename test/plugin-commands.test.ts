import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Problem } from '../src/http/problem.js';
import { serverCommandsRepo } from '../src/modules/servers/commands/repo.js';
import { LocalBroadcast } from '../src/http/broadcast.js';
import { pluginQueueRepo } from '../src/modules/servers/commands/queue/repo.js';
import { pluginQueue } from '../src/modules/servers/commands/queue/service.js';
import { QueueSignals } from '../src/modules/servers/commands/queue/signals.js';
import type {
  PluginCommandList,
  PluginCommandRecorded,
} from '../src/modules/servers/commands/queue/ingest-routes.js';
import type {
  ServerCommandResponse,
  ServerQueuedCommandResponse,
} from '../src/modules/servers/commands/v1-routes.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId, ofType } from './helpers/events.js';
import { registerServer } from './helpers/ingest.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The command queue of plugin-channel servers, end to end through the app: `/v1` issues and waits,
 * a simulated plugin long-polls and acknowledges; 202 and a later read; redelivery after 30 s;
 * expiry with a clear status; a duplicate acknowledgement recorded once; another server's command
 * 404. Times (delivery, expiry) run on the app's injected clock; only the waits run on real timers.
 */
for (const dialect of testDialects()) {
  describe(`plugin command queue (${dialect})`, () => {
    const tokens = new TokenTable();
    let ctx: TestContext;
    let clock = Date.now();
    let owner: number;
    let operator: number;
    let plugin: { id: number; token: string };
    let other: { id: number; token: string };
    let keys = 0;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens, now: () => clock });
      [owner, operator] = [(await ctx.makeUser()).id, (await ctx.makeUser()).id];
      const stranger = (await ctx.makeUser()).id;
      const forever = { expiresAt: Number.MAX_SAFE_INTEGER, tier: 'partner' as const };
      tokens.tokens.set('owner', userToken(['servers:command'], { ...forever, userId: owner, appId: 11 }));
      tokens.tokens.set('operator', userToken(['servers:command'], { ...forever, userId: operator }));
      tokens.tokens.set('stranger', userToken(['servers:command'], { ...forever, userId: stranger }));
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      plugin = await registerServer(ctx.testDb.db, 'minecraft');
      other = await registerServer(ctx.testDb.db, 'rust');
      for (const s of [plugin, other]) {
        assert.equal(await repo.setChannel(s.id, 'plugin', owner), true);
        await repo.grant(s.id, operator, clock);
      }
    });
    after(() => ctx.close());

    const send = (body: object, as = 'owner', serverId = plugin.id, key = `k-${++keys}`) =>
      ctx.inject({
        method: 'POST',
        url: `/v1/servers/${serverId}/command`,
        headers: { authorization: `Bearer ${as}`, 'idempotency-key': key },
        payload: body,
      });
    const read = (commandId: string, as = 'owner', serverId = plugin.id) =>
      ctx.inject({
        method: 'GET',
        url: `/v1/servers/${serverId}/commands/${commandId}`,
        headers: { authorization: `Bearer ${as}` },
      });
    const poll = (wait = 0, token = plugin.token) =>
      ctx.inject({
        method: 'GET',
        url: `/api-platform/ingest/commands?wait=${wait}`,
        headers: { authorization: `Bearer ${token}` },
      });
    const ack = (id: string, body: object, token = plugin.token) =>
      ctx.inject({
        method: 'POST',
        url: `/api-platform/ingest/commands/${id}/result`,
        headers: { authorization: `Bearer ${token}` },
        payload: body,
      });
    const ok = <T>(res: LightMyRequestResponse, status = 200): T => {
      assert.equal(res.statusCode, status, res.body);
      return json<T>(res);
    };
    /** a 202 of the plugin channel: where the command stands */
    const queued = (res: LightMyRequestResponse) => {
      const data = ok<{ data: ServerCommandResponse }>(res, 202).data;
      const { id, status, expires_at } = data;
      assert.ok(id !== undefined && status !== undefined && expires_at !== undefined, res.body);
      assert.deepEqual([data.output, data.duration_ms], ['', 0]);
      return { id, status, expires_at };
    };
    const problem = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.equal(json<Problem>(res).code, code, res.body);
    };
    const auditOf = (commandId: string) =>
      ctx.testDb.db.kysely
        .selectFrom('server_commands')
        .select(['status', 'output', 'command'])
        .where('server_id', '=', plugin.id)
        .where('command', '=', commandId)
        .execute();

    it('answers 200 with the output when a long-polling plugin acknowledges in time', async () => {
      const since = await lastEventId(ctx.testDb.db.kysely);
      // the plugin is already waiting when the command is issued
      const polled = poll(10);
      const answer = send({ command: 'say hello', wait_ms: 10_000 });
      const taken = ok<PluginCommandList>(await polled).data;
      assert.deepEqual(
        taken.map((c) => c.command),
        ['say hello'],
      );
      const [command] = taken;
      assert.ok(command);
      assert.ok(Date.parse(command.expires_at) - Date.parse(command.issued_at) === 60_000);
      const recorded = ok<PluginCommandRecorded>(
        await ack(command.id, { status: 'ok', output: '[Server] hello', duration_ms: 3 }),
      );
      assert.deepEqual(recorded, { recorded: true });
      const data = ok<{ data: ServerCommandResponse }>(await answer).data;
      assert.deepEqual(
        { ...data, executed_at: typeof data.executed_at },
        {
          command: 'say hello',
          output: '[Server] hello',
          truncated: false,
          duration_ms: 3,
          executed_at: 'string',
          id: command.id,
          status: 'ok',
        },
      );
      assert.deepEqual(await auditOf('say hello'), [
        { status: 'ok', output: '[Server] hello', command: 'say hello' },
      ]);
      const events = await eventsAfter(ctx.testDb.db.kysely, since);
      assertCatalogued(events);
      assert.deepEqual(
        ofType(events, 'server.command_completed').map((e) => [e.data, e.user_id]),
        [
          [
            {
              server_id: plugin.id,
              game: 'minecraft',
              command_id: command.id,
              user_id: owner,
              status: 'ok',
              output: '[Server] hello',
              duration_ms: 3,
            },
            owner,
          ],
        ],
      );
      assert.equal(ofType(events, 'server.command_executed').length, 1);
    });

    it('answers 202 with a Location when the plugin is late; the result is read there later, recorded once', async () => {
      const answer = await send({ command: 'kick Bob', wait_ms: 0 });
      const body = queued(answer);
      assert.equal(body.status, 'pending');
      assert.equal(answer.headers.location, `/v1/servers/${plugin.id}/commands/${body.id}`);
      assert.equal(ok<{ data: ServerQueuedCommandResponse }>(await read(body.id)).data.status, 'pending');

      const [taken] = ok<PluginCommandList>(await poll()).data;
      assert.equal(taken?.id, body.id);
      const delivered = ok<{ data: ServerQueuedCommandResponse }>(await read(body.id)).data;
      assert.deepEqual([delivered.status, delivered.deliveries, delivered.output], ['delivered', 1, null]);

      const since = await lastEventId(ctx.testDb.db.kysely);
      assert.deepEqual(ok(await ack(body.id, { status: 'error', output: 'No player named Bob' })), {
        recorded: true,
      });
      // the plugin retries after a lost answer: the first result stands, nothing is told twice
      assert.deepEqual(ok(await ack(body.id, { status: 'ok', output: 'something else' })), {
        recorded: false,
      });
      const done = ok<{ data: ServerQueuedCommandResponse }>(await read(body.id)).data;
      assert.deepEqual([done.status, done.output], ['error', 'No player named Bob']);
      assert.equal(
        ofType(await eventsAfter(ctx.testDb.db.kysely, since), 'server.command_completed').length,
        1,
      );
      assert.deepEqual(
        (await auditOf('kick Bob')).map((a) => a.status),
        ['error'],
      );
    });

    it('lets go of a long-poll as soon as the plugin hangs up, and claims nothing for it afterwards', async () => {
      const queue = pluginQueue({
        repo: pluginQueueRepo(ctx.testDb.db.kysely),
        signals: new QueueSignals(new LocalBroadcast()),
        now: () => clock,
        ttlMs: 60_000,
      });
      const hungUp = new AbortController();
      const started = performance.now();
      const taking = queue.take(other.id, 20_000, hungUp.signal);
      setTimeout(() => hungUp.abort(), 50);
      assert.deepEqual(await taking, []);
      // (without the wake-up on hang-up it held until its 2 s database backstop)
      const held = performance.now() - started;
      assert.ok(held < 1000, `held ${held.toFixed(0)} ms after the plugin left`);
      assert.deepEqual(
        await queue.take(other.id, 0, AbortSignal.abort()),
        [],
        'a gone plugin is handed nothing',
      );

      // through HTTP: the client's hang-up ends the hold the same way
      const client = new AbortController();
      setTimeout(() => client.abort(), 50);
      const answer = ctx.app
        .inject({
          method: 'GET',
          url: '/api-platform/ingest/commands?wait=20',
          headers: { authorization: `Bearer ${other.token}` },
          signal: client.signal,
        })
        .then(
          () => 'answered',
          (err: unknown) => (err instanceof Error ? err.name : String(err)),
        );
      assert.equal(await answer, 'AbortError');
    });

    it('delivers an unacknowledged command again after 30 s, and never twice within them', async () => {
      const id = queued(await send({ command: 'save-all', wait_ms: 0 })).id;
      assert.deepEqual(
        ok<PluginCommandList>(await poll()).data.map((c) => c.id),
        [id],
      );
      clock += 29_999;
      assert.deepEqual(ok<PluginCommandList>(await poll()).data, []);
      clock += 1;
      assert.deepEqual(
        ok<PluginCommandList>(await poll()).data.map((c) => c.id),
        [id],
      );
      assert.equal(ok<{ data: ServerQueuedCommandResponse }>(await read(id)).data.deliveries, 2);
      assert.deepEqual(ok(await ack(id, { status: 'ok', output: 'Saved the game' })), { recorded: true });
    });

    it('expires a command not acknowledged within 60 s: a clear status, a refused late result, audited and told', async () => {
      const since = await lastEventId(ctx.testDb.db.kysely);
      const late = queued(await send({ command: 'weather clear', wait_ms: 0 }));
      const unread = queued(await send({ command: 'time set day', wait_ms: 0 }, 'owner', other.id));
      assert.equal(ok<PluginCommandList>(await poll()).data.length, 1);
      clock += 60_000;
      problem(await ack(late.id, { status: 'ok', output: 'too late' }), 409, 'command_expired');
      const expired = ok<{ data: ServerQueuedCommandResponse }>(await read(late.id)).data;
      assert.deepEqual([expired.status, expired.output], ['expired', null]);
      assert.deepEqual(ok<PluginCommandList>(await poll()).data, [], 'an expired command is never delivered');
      // the other server's, which nobody reads again, is expired by the worker's sweep
      assert.deepEqual(
        (await pluginQueueRepo(ctx.testDb.db.kysely).expireDue(clock)).map((r) => String(r.id)),
        [unread.id],
      );
      const told = ofType(await eventsAfter(ctx.testDb.db.kysely, since), 'server.command_completed');
      assert.deepEqual(
        told.map((e) => [e.data.command_id, e.data.status, e.data.output]),
        [
          [late.id, 'expired', ''],
          [unread.id, 'expired', ''],
        ],
      );
      assert.deepEqual(
        (await auditOf('weather clear')).map((a) => a.status),
        ['expired'],
      );
    });

    it("keeps each server's commands to itself, and each caller to what they may read", async () => {
      const id = queued(await send({ command: 'list', wait_ms: 0 })).id;
      assert.deepEqual(ok<PluginCommandList>(await poll(0, other.token)).data, [], 'not the other server');
      problem(await ack(id, { status: 'ok', output: 'x' }, other.token), 404, 'command_not_found');
      problem(await read(id, 'owner', other.id), 404, 'command_not_found');
      problem(await read('999999'), 404, 'command_not_found');
      problem(await read(id, 'operator'), 404, 'command_not_found');
      problem(await read(id, 'stranger'), 403, 'server_operator_required');
      problem(await ack('999999', { status: 'ok', output: 'x' }), 404, 'command_not_found');
      problem(await read('abc'), 400, 'invalid_parameter');
      const mine = queued(await send({ command: 'seed', wait_ms: 0 }, 'operator')).id;
      assert.equal(
        ok<{ data: ServerQueuedCommandResponse }>(await read(mine, 'operator')).data.command,
        'seed',
      );
      assert.deepEqual(
        ok<PluginCommandList>(await poll()).data.map((c) => c.id),
        [id, mine],
      );
      await ack(id, { status: 'ok', output: '' });
      await ack(mine, { status: 'ok', output: '' });
    });

    it('refuses bad input with a problem and changes nothing', async () => {
      const count = async () =>
        (await ctx.testDb.db.kysely.selectFrom('plugin_commands').select('id').execute()).length;
      const before = await count();
      problem(await poll(31), 400, 'invalid_parameter');
      problem(await send({ command: 'say hi', wait_ms: 10_001 }), 400, 'invalid_body');
      problem(await send({ command: 'say hi\nop Mallory', wait_ms: 0 }), 400, 'invalid_body');
      const id = queued(await send({ command: 'say hi', wait_ms: 0 })).id;
      problem(await ack(id, { status: 'maybe', output: '' }), 400, 'invalid_body');
      problem(await ack(id, { status: 'ok', output: 'x'.repeat(65_537) }), 400, 'invalid_body');
      problem(await ack(id, { status: 'ok', output: '', extra: 1 }), 400, 'invalid_body');
      problem(
        await ack(id, { status: 'ok', output: '' }, '12345678901234567890123456789012'),
        401,
        'invalid_server_token',
      );
      assert.equal(ok<{ data: ServerQueuedCommandResponse }>(await read(id)).data.status, 'pending');
      assert.equal(await count(), before + 1);
      assert.deepEqual(ok(await ack(id, { status: 'ok', output: 'x'.repeat(65_536) })), { recorded: true });
    });

    it('replays a retried send with the same Idempotency-Key instead of queuing it twice', async () => {
      const first = await send({ command: 'say once', wait_ms: 0 }, 'owner', plugin.id, 'same-key');
      const again = await send({ command: 'say once', wait_ms: 0 }, 'owner', plugin.id, 'same-key');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(queued(again).id, queued(first).id);
      assert.equal(
        ok<PluginCommandList>(await poll()).data.filter((c) => c.command === 'say once').length,
        1,
      );
    });
  });
}

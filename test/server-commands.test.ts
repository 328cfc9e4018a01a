import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { generateSecretKey } from '../src/engines/secret-box.js';
import type { Problem } from '../src/http/problem.js';
import { sealRconPassword } from '../src/modules/servers/commands/rcon-password.js';
import { serverCommandsRepo } from '../src/modules/servers/commands/repo.js';
import type { ServerCommandResponse } from '../src/modules/servers/commands/v1-routes.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId } from './helpers/events.js';
import { deadPort, type FakeServer } from './helpers/fake-rcon/common.js';
import { fakeGoldSrcServer } from './helpers/fake-rcon/goldsrc.js';
import { fakeSourceServer } from './helpers/fake-rcon/source.js';
import { fakeWebRconServer } from './helpers/fake-rcon/webrcon.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * POST /v1/servers/:id/command and GET /v1/servers/:id/commands against fake game servers speaking
 * the real protocols over loopback: who may send, what each failure answers, that a retry with the
 * same Idempotency-Key never runs a command twice, and that every attempt is audited.
 */
const PASSWORD = 'rcon-secret-pw';
const TIMEOUT_MS = 400;

for (const dialect of testDialects()) {
  describe(`server commands (${dialect})`, () => {
    const key = generateSecretKey().key;
    const tokens = new TokenTable();
    const fakes: FakeServer[] = [];
    let ctx: TestContext;
    let owner: number;
    let operator: number;
    let stranger: number;
    let keyCounter = 0;
    const servers: Record<
      'cs2' | 'wrongPassword' | 'slow' | 'dead' | 'noRcon' | 'minecraft' | 'cs16' | 'rust' | 'rustWrong',
      number
    > = {
      cs2: 0,
      cs16: 0,
      rust: 0,
      rustWrong: 0,
      wrongPassword: 0,
      slow: 0,
      dead: 0,
      noRcon: 0,
      minecraft: 0,
    };
    let cs2: FakeServer;
    let minecraft: FakeServer;
    let cs16: FakeServer;
    let rust: FakeServer;

    const register = async (game: string, port: number, password: string | null) => {
      const row = await serversRepo(ctx.testDb.db.kysely).add({
        name: `${game} ${port}`,
        game,
        ip: '127.0.0.1',
        port: 1,
        query_port: null,
        token_hash: `hash-${game}-${port}-${Math.random()}`,
        created_at: Date.now(),
        owner_user_id: owner,
        rcon_port: port,
        rcon_password: password === null ? null : sealRconPassword(key, password),
      });
      return row.id;
    };

    before(async () => {
      ctx = await createTestContext(dialect, {
        accessTokens: tokens,
        secretKey: key,
        rconTimeoutMs: TIMEOUT_MS,
      });
      [owner, operator, stranger] = [
        (await ctx.makeUser()).id,
        (await ctx.makeUser()).id,
        (await ctx.makeUser()).id,
      ];
      const scopes = ['servers:command', 'servers:read'] as const;
      tokens.tokens.set('owner', userToken([...scopes], { userId: owner, appId: 11, tier: 'partner' }));
      tokens.tokens.set('operator', userToken([...scopes], { userId: operator, appId: 12, tier: 'partner' }));
      tokens.tokens.set('stranger', userToken([...scopes], { userId: stranger, tier: 'partner' }));
      tokens.tokens.set('owner-read', userToken(['servers:read'], { userId: owner, tier: 'partner' }));
      cs2 = await fakeSourceServer({ password: PASSWORD });
      minecraft = await fakeSourceServer({ password: PASSWORD, variant: 'minecraft' });
      const slow = await fakeSourceServer({ password: PASSWORD, behaviour: 'slow' });
      cs16 = await fakeGoldSrcServer({ password: PASSWORD });
      rust = await fakeWebRconServer({ password: PASSWORD });
      fakes.push(cs2, minecraft, slow, cs16, rust);
      servers.cs16 = await register('cs16', cs16.port, PASSWORD);
      servers.rust = await register('rust', rust.port, PASSWORD);
      servers.rustWrong = await register('rust', rust.port, 'not-the-password');
      servers.cs2 = await register('cs2', cs2.port, PASSWORD);
      servers.minecraft = await register('minecraft', minecraft.port, PASSWORD);
      servers.wrongPassword = await register('cs2', cs2.port, 'not-the-password');
      servers.slow = await register('cs2', slow.port, PASSWORD);
      servers.dead = await register('cs2', await deadPort(), PASSWORD);
      servers.noRcon = await register('cs2', cs2.port, null);
      const repo = serverCommandsRepo(ctx.testDb.db.kysely);
      for (const id of Object.values(servers)) await repo.grant(id, operator, Date.now());
    });
    after(async () => {
      await Promise.all(fakes.map((f) => f.close()));
      await ctx.close();
    });

    const send = (
      token: string,
      serverId: number,
      body: unknown,
      idempotencyKey: string | null = `k-${++keyCounter}`,
    ) =>
      ctx.inject({
        method: 'POST',
        url: `/v1/servers/${serverId}/command`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
        },
        payload: body as Record<string, unknown>,
      });
    const audit = (token: string, serverId: number, query = '') =>
      ctx.inject({
        method: 'GET',
        url: `/v1/servers/${serverId}/commands${query}`,
        headers: { authorization: `Bearer ${token}` },
      });
    const problemOf = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json<Problem>();
      assert.equal(problem.code, code, res.body);
      assert.ok(!res.body.includes(PASSWORD), 'no password in a problem');
      return problem;
    };
    const auditRows = (serverId: number) =>
      ctx.testDb.db.kysely
        .selectFrom('server_commands')
        .selectAll()
        .where('server_id', '=', serverId)
        .orderBy('id')
        .execute();

    it('runs a command on a Source RCON server (cs2) for its owner and returns the answer', async () => {
      const before = Date.now();
      const res = await send('owner', servers.cs2, { command: 'changelevel de_inferno' });
      assert.equal(res.statusCode, 200, res.body);
      const { data } = res.json<{ data: ServerCommandResponse }>();
      assert.equal(data.command, 'changelevel de_inferno');
      assert.equal(data.output, 'ran: changelevel de_inferno');
      assert.equal(data.truncated, false);
      assert.ok(Number.isInteger(data.duration_ms) && data.duration_ms >= 0);
      assert.ok(Date.parse(data.executed_at) >= before - 1);
      assert.deepEqual(cs2.received, ['changelevel de_inferno']);
      const rows = await auditRows(servers.cs2);
      assert.equal(rows.length, 1);
      assert.deepEqual(
        { ...rows[0], id: 0, created_at: 0, duration_ms: 0 },
        {
          id: 0,
          server_id: servers.cs2,
          user_id: owner,
          app_id: 11,
          command: 'changelevel de_inferno',
          status: 'ok',
          output: 'ran: changelevel de_inferno',
          duration_ms: 0,
          created_at: 0,
        },
      );
    });

    it('runs a command on a Minecraft server over the same protocol, for a granted operator', async () => {
      const res = await send('operator', servers.minecraft, { command: 'say hello' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ data: ServerCommandResponse }>().data.output, 'ran: say hello');
      assert.deepEqual(minecraft.received, ['say hello']);
    });

    it('speaks GoldSrc rcon over UDP to cs16 and WebRCON to rust', async () => {
      const goldsrc = await send('owner', servers.cs16, { command: 'changelevel de_dust2' });
      assert.equal(goldsrc.statusCode, 200, goldsrc.body);
      assert.match(goldsrc.json<{ data: ServerCommandResponse }>().data.output, /ran: changelevel de_dust2/);
      assert.deepEqual(cs16.received, ['changelevel de_dust2']);
      const webrcon = await send('operator', servers.rust, { command: 'server.save' });
      assert.equal(webrcon.statusCode, 200, webrcon.body);
      assert.equal(webrcon.json<{ data: ServerCommandResponse }>().data.output, 'ran: server.save');
      assert.deepEqual(rust.received, ['server.save']);
      const refused = await send('owner', servers.rustWrong, { command: 'server.save' });
      problemOf(refused, 502, 'rcon_auth_failed');
      assert.deepEqual(rust.received, ['server.save']);
      assert.deepEqual(
        (await auditRows(servers.rustWrong)).map((r) => r.status),
        ['auth_failed'],
      );
    });

    it('answers a retry with the same Idempotency-Key from the store, never running the command twice', async () => {
      const first = await send('owner', servers.cs2, { command: 'mp_restartgame 1' }, 'restart-1');
      assert.equal(first.statusCode, 200, first.body);
      const retries = await Promise.all(
        Array.from({ length: 5 }, () =>
          send('owner', servers.cs2, { command: 'mp_restartgame 1' }, 'restart-1'),
        ),
      );
      for (const retry of retries) {
        assert.equal(retry.statusCode, 200, retry.body);
        assert.equal(retry.headers['idempotent-replayed'], 'true');
        assert.equal(retry.body, first.body);
      }
      assert.equal(cs2.received.filter((c) => c === 'mp_restartgame 1').length, 1);
      const reused = await send('owner', servers.cs2, { command: 'mp_restartgame 2' }, 'restart-1');
      problemOf(reused, 422, 'idempotency_key_reused');
      assert.ok(!cs2.received.includes('mp_restartgame 2'));
      assert.equal(
        (await auditRows(servers.cs2)).filter((r) => r.command.startsWith('mp_restartgame')).length,
        1,
      );
    });

    it('requires an Idempotency-Key (400) and runs nothing without one', async () => {
      const sent = cs2.received.length;
      const res = await send('owner', servers.cs2, { command: 'status' }, null);
      const problem = problemOf(res, 400, 'invalid_parameter');
      assert.match(problem.detail, /Idempotency-Key/);
      assert.equal(cs2.received.length, sent);
    });

    it('refuses a stranger (403), an unknown or removed server (404) and a token without the scope', async () => {
      const sent = cs2.received.length;
      const auditBefore = (await auditRows(servers.cs2)).length;
      problemOf(await send('stranger', servers.cs2, { command: 'status' }), 403, 'server_operator_required');
      problemOf(await send('owner', 999999, { command: 'status' }), 404, 'server_not_found');
      problemOf(await send('owner-read', servers.cs2, { command: 'status' }), 403, 'insufficient_scope');
      const removed = await register('cs2', cs2.port, PASSWORD);
      await serversRepo(ctx.testDb.db.kysely).remove(removed, Date.now());
      problemOf(await send('owner', removed, { command: 'status' }), 404, 'server_not_found');
      assert.equal(cs2.received.length, sent);
      assert.equal((await auditRows(servers.cs2)).length, auditBefore);
    });

    it('refuses a command that is empty, too long or more than one line, sending nothing', async () => {
      const sent = cs2.received.length;
      for (const command of ['', 'x'.repeat(513), 'say hi\nquit', 'say hi\rquit', 'say \u0000']) {
        const res = await send('owner', servers.cs2, { command });
        problemOf(res, 400, 'invalid_body');
      }
      problemOf(await send('owner', servers.cs2, {}), 400, 'invalid_body');
      assert.equal(cs2.received.length, sent);
    });

    it('answers 409 for a server without an RCON password, sending and auditing nothing', async () => {
      const problem = problemOf(
        await send('owner', servers.noRcon, { command: 'status' }),
        409,
        'rcon_not_configured',
      );
      assert.match(problem.detail, /hub servers set-rcon/);
      assert.deepEqual(await auditRows(servers.noRcon), []);
    });

    it('answers 502 rcon_auth_failed for a refused password, without the password, and audits it', async () => {
      const res = await send('owner', servers.wrongPassword, { command: 'status' });
      const problem = problemOf(res, 502, 'rcon_auth_failed');
      assert.match(problem.detail, /refused the RCON password/);
      assert.ok(!res.body.includes('not-the-password'));
      const rows = await auditRows(servers.wrongPassword);
      assert.deepEqual(
        rows.map((r) => [r.status, r.command]),
        [['auth_failed', 'status']],
      );
    });

    it('answers 504 rcon_timeout for a server that never answers, and audits it', async () => {
      const started = Date.now();
      const res = await send('owner', servers.slow, { command: 'status' });
      problemOf(res, 504, 'rcon_timeout');
      assert.ok(Date.now() - started >= TIMEOUT_MS - 50);
      const rows = await auditRows(servers.slow);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.status, 'timeout');
      assert.ok(rows.every((r) => r.duration_ms >= TIMEOUT_MS - 50));
    });

    it('answers 502 rcon_unreachable for a dead server, and audits it; a 5xx releases the key', async () => {
      const res = await send('owner', servers.dead, { command: 'status' }, 'dead-1');
      problemOf(res, 502, 'rcon_unreachable');
      const again = await send('owner', servers.dead, { command: 'status' }, 'dead-1');
      problemOf(again, 502, 'rcon_unreachable');
      assert.equal(again.headers['idempotent-replayed'], undefined);
      assert.deepEqual(
        (await auditRows(servers.dead)).map((r) => r.status),
        ['unreachable', 'unreachable'],
      );
    });

    it('shows the owner the whole audit newest first, an operator only their own, a stranger nothing', async () => {
      await send('operator', servers.cs2, { command: 'say from the operator' });
      const all = await audit('owner', servers.cs2, '?per_page=2');
      assert.equal(all.statusCode, 200, all.body);
      const body = all.json<{
        data: { id: number; user_id: number; command: string; status: string }[];
        meta: { total: number };
      }>();
      assert.equal(body.data.length, 2);
      assert.equal(body.data[0]?.command, 'say from the operator');
      const [newer, older] = body.data.map((r) => r.id);
      assert.ok(newer !== undefined && older !== undefined && newer > older);
      const total = (await auditRows(servers.cs2)).length;
      assert.deepEqual(body.meta, { total, page: 1, per_page: 2 });
      const mine = (await audit('operator', servers.cs2)).json<{
        data: { user_id: number }[];
        meta: { total: number };
      }>();
      assert.equal(mine.meta.total, 1);
      assert.deepEqual(
        mine.data.map((r) => r.user_id),
        [operator],
      );
      problemOf(await audit('stranger', servers.cs2), 403, 'server_operator_required');
      problemOf(await audit('owner', 999999), 404, 'server_not_found');
    });

    it('with another HUB_SECRET_KEY, answers 503 without sending anything, and audits the attempt', async () => {
      const lines: string[] = [];
      const other = await buildApp({
        db: ctx.testDb.db,
        config: { LOG_LEVEL: 'error', CACHE_TTL_MS: 0, TRUST_PROXY: false },
        accessTokens: tokens,
        secretKey: generateSecretKey().key,
        logStream: { write: (line) => lines.push(line) },
      });
      try {
        const sent = cs2.received.length;
        const res = await other.inject({
          method: 'POST',
          url: `/v1/servers/${servers.cs2}/command`,
          headers: { authorization: 'Bearer owner', 'idempotency-key': 'other-key-1' },
          payload: { command: 'status' },
        });
        const problem = problemOf(res, 503, 'service_unavailable');
        assert.match(problem.detail, /HUB_SECRET_KEY/);
        assert.equal(cs2.received.length, sent);
        assert.equal((await auditRows(servers.cs2)).at(-1)?.status, 'error');
        assert.ok(
          lines.some((l) => /sealed under another key/.test(l)),
          lines.join('\n'),
        );
        assert.ok(!lines.join('\n').includes(PASSWORD));
      } finally {
        await other.close();
      }
    });

    it('tells the sender each attempt the history records (server.command_executed), answered or not', async () => {
      const start = await lastEventId(ctx.testDb.db.kysely);
      assert.equal((await send('owner', servers.cs16, { command: 'status' })).statusCode, 200);
      problemOf(await send('owner', servers.rustWrong, { command: 'status' }), 502, 'rcon_auth_failed');
      problemOf(await send('stranger', servers.cs2, { command: 'status' }), 403, 'server_operator_required');
      const told = await eventsAfter(ctx.testDb.db.kysely, start);
      assertCatalogued(told);
      const audited = [(await auditRows(servers.cs16)).at(-1), (await auditRows(servers.rustWrong)).at(-1)];
      assert.deepEqual(
        told.map((e) => [e.type, e.user_id, e.data]),
        [
          [servers.cs16, 'cs16', audited[0]?.id, true],
          [servers.rustWrong, 'rust', audited[1]?.id, false],
        ].map(([server_id, game, command_id, ok]) => [
          'server.command_executed',
          owner,
          { server_id, game, command_id, user_id: owner, command: 'status', ok },
        ]),
      );
    });

    it('never stores the RCON password in clear', async () => {
      const rows = await ctx.testDb.db.kysely.selectFrom('game_servers').select('rcon_password').execute();
      for (const { rcon_password } of rows)
        assert.ok(rcon_password === null || !rcon_password.includes(PASSWORD));
    });
  });
}

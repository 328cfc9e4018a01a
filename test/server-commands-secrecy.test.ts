import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { generateSecretKey } from '../src/engines/secret-box.js';
import { PASSWORD_MASK } from '../src/modules/servers/commands/service.js';
import { sealRconPassword } from '../src/modules/servers/commands/rcon-password.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { runRconCommand, RconError, type RconProtocol } from '../src/modules/servers/rcon/index.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { deadPort, type CommandHandler, type FakeServer } from './helpers/fake-rcon/common.js';
import { fakeGoldSrcServer } from './helpers/fake-rcon/goldsrc.js';
import { fakeSourceServer } from './helpers/fake-rcon/source.js';
import { fakeWebRconServer } from './helpers/fake-rcon/webrcon.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The RCON password never leaves the hub: not in an answer (output or problem), not in the
 * command history (rows or the history route), not in a stored idempotent answer, not in an
 * event, not in a log line, whatever happens on the wire (refused, silent, garbage, hang-up,
 * oversized, unreachable) and even when the game server prints it (`rcon_password` echoes the
 * current one).
 */
const PASSWORD = 'Leak me? #7/pw';
const FORMS = [PASSWORD, encodeURIComponent(PASSWORD)];
const TIMEOUT_MS = 1000;
// a game server asked for its password prints it, as HLDS and SRCDS do for `rcon_password`
const echoing: CommandHandler = (command) =>
  command === 'rcon_password' ? `"rcon_password" is "${PASSWORD}"\n` : `ran: ${command} (${PASSWORD})`;

const leaks = (text: string) => FORMS.filter((form) => text.includes(form));

for (const dialect of testDialects()) {
  describe(`the RCON password stays secret (${dialect})`, () => {
    const key = generateSecretKey().key;
    const tokens = new TokenTable();
    const fakes: FakeServer[] = [];
    const lines: string[] = [];
    const bodies: string[] = [];
    const servers: { name: string; id: number }[] = [];
    let testDb: TestDb;
    let app: FastifyInstance;
    let owner: number;

    before(async () => {
      testDb = await openTestDb(dialect);
      owner = (await factories(testDb.db).makeUser()).id;
      tokens.tokens.set(
        'owner',
        userToken(['servers:command', 'servers:read'], { userId: owner, appId: 5, tier: 'partner' }),
      );
      app = await buildApp({
        db: testDb.db,
        config: { LOG_LEVEL: 'debug', CACHE_TTL_MS: 0, TRUST_PROXY: false, RCON_TIMEOUT_MS: TIMEOUT_MS },
        accessTokens: tokens,
        secretKey: key,
        logStream: { write: (line) => lines.push(line) },
      });
      const register = async (name: string, game: string, port: number, password = PASSWORD) => {
        const row = await serversRepo(testDb.db.kysely).add({
          name,
          game,
          ip: '127.0.0.1',
          port: 1,
          query_port: null,
          token_hash: `hash-${name}-${Math.random()}`,
          created_at: Date.now(),
          owner_user_id: owner,
          rcon_port: port,
          rcon_password: sealRconPassword(key, password),
        });
        servers.push({ name, id: row.id });
      };
      const fake = async (made: Promise<FakeServer>) => {
        const server = await made;
        fakes.push(server);
        return server.port;
      };
      const handler = echoing;
      await register('source ok', 'cs2', await fake(fakeSourceServer({ password: PASSWORD, handler })));
      await register('goldsrc ok', 'cs16', await fake(fakeGoldSrcServer({ password: PASSWORD, handler })));
      await register('webrcon ok', 'rust', await fake(fakeWebRconServer({ password: PASSWORD, handler })));
      await register('source wrong', 'cs2', fakes[0]?.port ?? 0, `${PASSWORD}x`);
      await register('goldsrc wrong', 'cs16', fakes[1]?.port ?? 0, `${PASSWORD}x`);
      await register('webrcon wrong', 'rust', fakes[2]?.port ?? 0, `${PASSWORD}x`);
      const closing = fakeWebRconServer({ password: PASSWORD, wrongPassword: 'close' });
      await register('webrcon closes', 'rust', await fake(closing), `${PASSWORD}x`);
      for (const behaviour of ['slow', 'garbage', 'hangup', 'oversized'] as const)
        await register(
          `source ${behaviour}`,
          'cs2',
          await fake(fakeSourceServer({ password: PASSWORD, behaviour })),
        );
      for (const behaviour of ['slow', 'garbage'] as const) {
        await register(
          `goldsrc ${behaviour}`,
          'cs16',
          await fake(fakeGoldSrcServer({ password: PASSWORD, behaviour })),
        );
        await register(
          `webrcon ${behaviour}`,
          'rust',
          await fake(fakeWebRconServer({ password: PASSWORD, behaviour })),
        );
      }
      await register('dead', 'cs2', await deadPort());
    });
    after(async () => {
      await app.close();
      await Promise.all(fakes.map((f) => f.close()));
      await testDb.drop();
    });

    it('sends commands through every outcome without the password in any answer', async () => {
      let n = 0;
      for (const server of servers) {
        for (const command of ['rcon_password', 'status']) {
          const res = await app.inject({
            method: 'POST',
            url: `/v1/servers/${server.id}/command`,
            headers: { authorization: 'Bearer owner', 'idempotency-key': `secrecy-${n++}` },
            payload: { command },
          });
          assert.ok(
            res.statusCode === 200 || res.statusCode >= 500,
            `${server.name}: ${res.statusCode} ${res.body}`,
          );
          assert.deepEqual(leaks(res.body), [], `${server.name} answered ${res.body}`);
          bodies.push(res.body);
        }
      }
      // the three working servers answered both commands, the password in each output masked
      const masked = bodies.filter((b) => b.includes(PASSWORD_MASK));
      assert.equal(masked.length, 6, bodies.join('\n'));
    });

    it('keeps it out of the command history, its route, the stored answers, the events and the logs', async () => {
      const rows = await testDb.db.kysely.selectFrom('server_commands').selectAll().execute();
      assert.equal(rows.length, servers.length * 2);
      assert.deepEqual(leaks(JSON.stringify(rows)), [], 'server_commands rows');
      for (const server of servers) {
        const res = await app.inject({
          method: 'GET',
          url: `/v1/servers/${server.id}/commands`,
          headers: { authorization: 'Bearer owner' },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(leaks(res.body), [], `${server.name} history`);
      }
      const stored = await testDb.db.kysely.selectFrom('idempotency_keys').select('body').execute();
      assert.ok(stored.length > 0);
      assert.deepEqual(leaks(JSON.stringify(stored)), [], 'stored idempotent answers');
      const told = await testDb.db.kysely.selectFrom('events').select('data').execute();
      assert.ok(told.length >= rows.length, 'every command was told');
      assert.deepEqual(leaks(JSON.stringify(told)), [], 'events');
      assert.ok(lines.length > 0, 'the app logged');
      assert.deepEqual(leaks(lines.join('\n')), [], 'log lines');
    });
  });
}

describe('RCON errors carry no password', () => {
  it('not in the message nor in the cause, even when the target cannot be used at all', async () => {
    const protocols: RconProtocol[] = ['source', 'goldsrc', 'webrcon'];
    for (const protocol of protocols) {
      for (const host of ['bad host name', '127.0.0.1']) {
        const port = host === '127.0.0.1' ? await deadPort() : 1;
        const err = await runRconCommand({ protocol, host, port, password: PASSWORD }, 'status', {
          timeoutMs: TIMEOUT_MS,
        }).then(
          () => assert.fail(`${protocol} ${host}: no error`),
          (e: unknown) => e,
        );
        assert.ok(err instanceof RconError, String(err));
        const chain: string[] = [];
        for (let e: unknown = err; e instanceof Error; e = e.cause)
          chain.push(`${e.message}\n${e.stack ?? ''}`);
        assert.deepEqual(leaks(chain.join('\n')), [], `${protocol} ${host}: ${chain.join('\n---\n')}`);
      }
    }
  });
});

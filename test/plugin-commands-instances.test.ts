import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { serverCommandsRepo } from '../src/modules/servers/commands/repo.js';
import type { PluginCommandList } from '../src/modules/servers/commands/queue/ingest-routes.js';
import type { ServerCommandResponse } from '../src/modules/servers/commands/v1-routes.js';
import { openTestDb, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { registerServer } from './helpers/ingest.js';
import { instancesOnSharedRedis, sharedRedisUrl } from './helpers/redis.js';
import { TokenTable, userToken } from './helpers/token-table.js';

/**
 * The hub runs several instances: the `/v1` caller waits on one while the plugin long-polls and
 * acknowledges on another. The instances share PostgreSQL and hear each other through Redis
 * pub/sub, so the command reaches the plugin and its result the caller without either polling.
 */
const skip =
  !process.env.TEST_DATABASE_URL || !sharedRedisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false;

describe('plugin command queue across instances (postgres + redis)', { skip }, () => {
  const tokens = new TokenTable();
  let testDb: TestDb;
  let apps: FastifyInstance[];
  let server: { id: number; token: string };

  before(async () => {
    testDb = await openTestDb('postgres');
    apps = await instancesOnSharedRedis(testDb, 2, { accessTokens: tokens });
    const owner = (await factories(testDb.db).makeUser()).id;
    tokens.tokens.set('owner', userToken(['servers:command'], { userId: owner, tier: 'partner' }));
    server = await registerServer(testDb.db, 'minecraft');
    await serverCommandsRepo(testDb.db.kysely).setChannel(server.id, 'plugin', owner);
  });
  after(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await testDb.drop();
  });

  it('answers the caller on one instance with the result the plugin posted to another', async () => {
    const [caller, pluginSide] = apps as [FastifyInstance, FastifyInstance];
    for (let round = 0; round < 3; round++) {
      const polled = pluginSide.inject({
        method: 'GET',
        url: '/api-platform/ingest/commands?wait=20',
        headers: { authorization: `Bearer ${server.token}` },
      });
      const started = performance.now();
      const answer = caller.inject({
        method: 'POST',
        url: `/v1/servers/${server.id}/command`,
        headers: { authorization: 'Bearer owner', 'idempotency-key': `round-${round}` },
        payload: { command: `say round ${round}`, wait_ms: 10_000 },
      });
      const [command] = (await polled).json<PluginCommandList>().data;
      assert.equal(command?.command, `say round ${round}`);
      const ack = await pluginSide.inject({
        method: 'POST',
        url: `/api-platform/ingest/commands/${command.id}/result`,
        headers: { authorization: `Bearer ${server.token}` },
        payload: { status: 'ok', output: `done ${round}` },
      });
      assert.equal(ack.statusCode, 200, ack.body);
      const res = await answer;
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ data: ServerCommandResponse }>().data.output, `done ${round}`);
      // well inside the 10 s wait: the wake-ups crossed instances (the backstop alone re-reads every 1-2 s)
      assert.ok(performance.now() - started < 9000);
    }
  });
});

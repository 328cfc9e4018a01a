import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hubCommands, sayCommands } from '@gaming-hub/bot';
import { HubClient } from '@gaming-hub/client';
import { serverCommandsRepo } from '../../src/modules/servers/commands/repo.js';
import { createTestContext, type TestContext } from '../../test/helpers/context.js';
import { registerServer } from '../../test/helpers/ingest.js';
import { TokenTable, userToken } from '../../test/helpers/token-table.js';

/**
 * A bot's replies to a plugin-channel server (issue 26) go through the command queue its plugin
 * long-polls, with the same `hubCommands` channel as remote-console servers: the plugin receives
 * the `say` lines, and a line the game refuses is a failed reply the handler hears about.
 */
describe('bot replies through the plugin command queue', () => {
  const tokens = new TokenTable();
  let ctx: TestContext;
  let hub: HubClient;
  let server: { id: number; token: string };

  before(async () => {
    ctx = await createTestContext('sqlite', { accessTokens: tokens });
    const owner = (await ctx.makeUser()).id;
    tokens.tokens.set('bot-owner', userToken(['servers:command'], { userId: owner, tier: 'partner' }));
    server = await registerServer(ctx.testDb.db, 'minecraft');
    await serverCommandsRepo(ctx.testDb.db.kysely).setChannel(server.id, 'plugin', owner);
    const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    hub = new HubClient({ baseUrl: base, headers: { authorization: 'Bearer bot-owner' } });
  });
  after(() => ctx.close());

  /** The plugin's loop, once: takes what is due (waiting up to 10 s) and answers each line. */
  const pluginRound = async (answer: (command: string) => { status: 'ok' | 'error'; output: string }) => {
    const polled = await ctx.inject({
      method: 'GET',
      url: '/api-platform/ingest/commands?wait=10',
      headers: { authorization: `Bearer ${server.token}` },
    });
    const taken = polled.json<{ data: { id: string; command: string }[] }>().data;
    for (const c of taken)
      await ctx.inject({
        method: 'POST',
        url: `/api-platform/ingest/commands/${c.id}/result`,
        headers: { authorization: `Bearer ${server.token}` },
        payload: answer(c.command),
      });
    return taken.map((c) => c.command);
  };

  it('delivers a long reply to the plugin as the game’s say lines, split between words', async () => {
    const channel = hubCommands(hub);
    const lines = sayCommands('minecraft', `Your rank: #3 of 120. ${'Keep fragging, '.repeat(20)}gg`);
    assert.ok(lines.length > 1);
    const received: string[] = [];
    for (const [i, line] of lines.entries()) {
      const sent = channel.run(server.id, line, `reply-1-${i}`);
      received.push(...(await pluginRound((c) => ({ status: 'ok', output: `[Server] ${c.slice(4)}` }))));
      await sent;
    }
    assert.deepEqual(received, lines);
    assert.ok(received.every((l) => l.startsWith('say ') && Buffer.byteLength(l) <= 4 + 240));
  });

  it('reports a reply the game refused instead of losing it', async () => {
    const sent = hubCommands(hub).run(server.id, 'say §kbroken', 'reply-2');
    await pluginRound(() => ({ status: 'error', output: 'Unknown formatting code' }));
    await assert.rejects(sent, /did not run the reply \(error: Unknown formatting code\)/);
  });
});

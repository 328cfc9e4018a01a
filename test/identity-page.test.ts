import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { changedTables, snapshotTables } from './helpers/db-snapshot.js';
import { eventsAfter, lastEventId } from './helpers/events.js';
import { FORM, followForm, mainOf, PORTAL, signUp, type PortalSession } from './helpers/portal.js';
import { registerServer } from './helpers/ingest.js';

/**
 * The portal's Game identities page (issue 26): a signed-in user gets a code to type in game,
 * enters a plugin's code, sees and removes their links; a refusal is shown on the page, not as a
 * problem, and changes nothing.
 */
describe('the Game identities page', () => {
  let ctx: TestContext;
  let user: PortalSession;
  let server: { id: number; token: string };
  before(async () => {
    ctx = await createTestContext('sqlite');
    user = await signUp(ctx);
    server = await registerServer(ctx.testDb.db, 'minecraft');
  });
  after(() => ctx.close());

  const page = () =>
    ctx.inject({ method: 'GET', url: `${PORTAL}/identities`, headers: { cookie: user.cookie } });
  const post = (path: string, fields: Record<string, string>) =>
    ctx.inject({
      method: 'POST',
      url: `${PORTAL}/identities${path}`,
      headers: { ...FORM, cookie: user.cookie },
      payload: new URLSearchParams({ _csrf: user.csrf, ...fields }).toString(),
    });

  it('sends a signed-out visitor to sign in', async () => {
    const res = await ctx.inject({ method: 'GET', url: `${PORTAL}/identities` });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `${PORTAL}/sign-in`);
  });

  it('gives a code that a plugin links with, then lists and unlinks the identity', async () => {
    const empty = await page();
    assert.equal(empty.statusCode, 200);
    assert.match(mainOf(empty.body), /No linked identities yet/);

    const shown = await followForm(ctx, await post('/code', {}), user.cookie);
    const code = /Your link code is ([2-9A-Z]{3}-[2-9A-Z]{3})/.exec(shown.body)?.[1];
    assert.ok(code, mainOf(shown.body).slice(0, 600));
    // shown once: the page reloaded has no code
    assert.doesNotMatch((await page()).body, /Your link code is/);

    const linked = await ctx.inject({
      method: 'POST',
      url: '/api-platform/ingest/links',
      headers: { authorization: `Bearer ${server.token}` },
      payload: { player: { name: 'Steve', minecraft_uuid: '069a79f444e94726a5befca90e38aaf5' }, code },
    });
    assert.equal(linked.statusCode, 200, linked.body);
    const listed = mainOf((await page()).body);
    assert.match(listed, /069a79f4-44e9-4726-a5be-fca90e38aaf5/);
    assert.match(listed, /Steve/);

    const start = await lastEventId(ctx.testDb.db.kysely);
    const removed = await followForm(
      ctx,
      await post('/remove', { platform: 'minecraft', player_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }),
      user.cookie,
    );
    assert.match(removed.body, /Unlinked minecraft/);
    assert.match(mainOf(removed.body), /No linked identities yet/);
    // the form tells what the /v1 route tells
    const told = await eventsAfter(ctx.testDb.db.kysely, start);
    assert.deepEqual(
      told.map((e) => [e.type, e.user_id, e.data.player_id]),
      [['player.identity_unlinked', user.accountId, '069a79f4-44e9-4726-a5be-fca90e38aaf5']],
    );
  });

  it('shows a wrong code on the page and changes nothing', async () => {
    const before = await snapshotTables(ctx.testDb);
    const shown = await followForm(ctx, await post('/link', { code: 'ZZZ-ZZZ' }), user.cookie);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /The link code is unknown, used or expired/);
    assert.deepEqual(
      changedTables(before, await snapshotTables(ctx.testDb)).filter((t) => t !== 'portal_flashes'),
      [],
    );
  });
});

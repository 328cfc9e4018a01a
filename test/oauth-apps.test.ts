import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { appsCommand } from '../src/commands/apps.js';
import { UsageError } from '../src/commands/args.js';
import type { AppBody, AppsBody, CreatedAppBody } from '../src/modules/apps/schemas.js';
import type { AuthorizedApp } from '../src/modules/oauth/authorized-apps.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId } from './helpers/events.js';
import { REDIRECT_URI, tokenRequest, userTokens } from './helpers/oauth.js';
import { FORM, followForm, hiddenCsrf, signUp, type PortalSession } from './helpers/portal.js';

const NEW_APP = { name: 'Frag Tracker', kind: 'confidential', redirect_uris: [REDIRECT_URI] } as const;

for (const dialect of testDialects()) {
  describe(`OAuth apps in the portal, authorized apps, hub apps (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    const tokenOf = async (user: PortalSession, clientId: string, secret: string) =>
      (await userTokens(ctx, user, { clientId, secret }, 'identify stats:read', { state: undefined }))
        .access_token;
    const me = (token: string) =>
      ctx.inject({ method: 'GET', url: '/v1/users/@me', headers: { authorization: `Bearer ${token}` } });

    test('JSON: create (secret once, stored hashed), list, read, edit, rotate, delete; others see 404', async () => {
      const dev = await signUp(ctx);
      const created = await dev.call('POST', '/my-apps', NEW_APP);
      assert.equal(created.statusCode, 201, created.body);
      const body = created.json<CreatedAppBody>();
      assert.match(body.client_secret ?? '', /^ghcs_[A-Za-z0-9_-]{43}$/);
      const row = await ctx.testDb.db.kysely
        .selectFrom('oauth_apps')
        .selectAll()
        .where('id', '=', body.app.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.secret_hash, body.client_secret);
      assert.doesNotMatch(JSON.stringify(row), new RegExp(body.client_secret ?? 'x'));

      const list = await dev.call('GET', '/my-apps');
      assert.deepEqual(
        list.json<AppsBody>().apps.map((a) => a.client_id),
        [body.app.client_id],
      );
      assert.doesNotMatch(list.body, /ghcs_/);

      const edited = await dev.call('PATCH', `/my-apps/${body.app.id}`, {
        name: 'Frag Tracker 2',
        redirect_uris: [REDIRECT_URI, 'https://fragtracker.example/cb'],
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json<AppBody>().app.name, 'Frag Tracker 2');

      const rotated = await dev.call('POST', `/my-apps/${body.app.id}/secret`);
      const newSecret = rotated.json<{ client_secret: string }>().client_secret;
      assert.notEqual(newSecret, body.client_secret);
      const cc = (secret: string) =>
        tokenRequest(ctx, { clientId: body.app.client_id, secret }, { grant_type: 'client_credentials' });
      assert.equal((await cc(body.client_secret ?? '')).statusCode, 401, 'the old secret stopped working');
      assert.equal((await cc(newSecret)).statusCode, 200);

      const other = await signUp(ctx);
      assert.equal((await other.call('GET', `/my-apps/${body.app.id}`)).statusCode, 404);
      assert.equal((await other.call('DELETE', `/my-apps/${body.app.id}`)).statusCode, 404);

      const gone = await dev.call('DELETE', `/my-apps/${body.app.id}`);
      assert.equal(gone.statusCode, 204);
      assert.equal((await dev.call('GET', `/my-apps/${body.app.id}`)).statusCode, 404);
    });

    test('JSON: bad redirect URIs and fields are 422 and change nothing; writes need the CSRF header', async () => {
      const dev = await signUp(ctx);
      for (const uris of [
        ['http://fragtracker.example/cb'],
        ['https://*.example/cb'],
        ['https://a.example/cb#x'],
        ['not a url'],
        [],
      ]) {
        const res = await dev.call('POST', '/my-apps', { ...NEW_APP, redirect_uris: uris });
        assert.ok([400, 422].includes(res.statusCode), `${JSON.stringify(uris)}: ${res.statusCode}`);
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
      const noCsrf = await ctx.inject({
        method: 'POST',
        url: '/api-platform/developer/my-apps',
        headers: { cookie: dev.cookie },
        payload: NEW_APP,
      });
      assert.equal(noCsrf.statusCode, 403);
      assert.equal((await dev.call('GET', '/my-apps')).json<AppsBody>().apps.length, 0);
    });

    test('authorized apps: listed with scopes and last use; revoking makes the next call 401', async () => {
      const dev = await signUp(ctx);
      const app = (await dev.call('POST', '/my-apps', NEW_APP)).json<CreatedAppBody>();
      const user = await signUp(ctx);
      const beforeConsent = await lastEventId(ctx.testDb.db.kysely);
      const token = await tokenOf(user, app.app.client_id, app.client_secret ?? '');
      const decision = {
        user_id: user.accountId,
        client_id: app.app.client_id,
        scopes: ['identify', 'stats:read'],
      };
      const toldOf = async (after: number) => {
        const told = await eventsAfter(ctx.testDb.db.kysely, after);
        assertCatalogued(told);
        return told.map((e) => [e.type, e.app_id, e.user_id, e.data]);
      };
      // consent is told to the app once (the code and token exchange save no grant)
      assert.deepEqual(await toldOf(beforeConsent), [['authorization.granted', app.app.id, null, decision]]);
      assert.equal((await me(token)).statusCode, 200);
      const listed = (await user.call('GET', '/my-authorized-apps')).json<{
        authorized_apps: AuthorizedApp[];
      }>();
      assert.equal(listed.authorized_apps.length, 1);
      const entry = listed.authorized_apps[0];
      assert.ok(entry);
      assert.equal(entry.name, 'Frag Tracker');
      assert.deepEqual(entry.scopes.sort(), ['identify', 'stats:read']);
      assert.ok(entry.last_used, 'last use recorded');

      const start = await lastEventId(ctx.testDb.db.kysely);
      const revoked = await user.call('DELETE', `/my-authorized-apps/${app.app.client_id}`);
      assert.equal(revoked.statusCode, 204);
      assert.equal((await me(token)).statusCode, 401);
      assert.equal((await user.call('DELETE', `/my-authorized-apps/${app.app.client_id}`)).statusCode, 404);
      // the app is told once, in the revocation's transaction; the second DELETE revoked nothing
      assert.deepEqual(await toldOf(start), [['authorization.revoked', app.app.id, null, decision]]);
    });

    test('pages: register an app (secret shown once), authorized apps page revokes', async () => {
      const dev = await signUp(ctx);
      const appsPage = await ctx.inject({
        method: 'GET',
        url: '/api-platform/developer/apps',
        headers: { cookie: dev.cookie },
      });
      assert.equal(appsPage.statusCode, 200);
      const posted = await ctx.inject({
        method: 'POST',
        url: '/api-platform/developer/apps/new',
        headers: { ...FORM, cookie: dev.cookie },
        payload: new URLSearchParams({
          _csrf: hiddenCsrf(appsPage),
          name: 'Web App',
          kind: 'confidential',
          redirect_uris: REDIRECT_URI,
        }).toString(),
      });
      assert.equal(posted.statusCode, 303);
      const shown = await followForm(ctx, posted, dev.cookie);
      const secret = /id="secret" value="(ghcs_[^"]+)"/.exec(shown.body)?.[1];
      assert.ok(secret, 'the secret is on the page');
      const clientId = /id="client-id">([^<]+)</.exec(shown.body)?.[1] ?? '';
      const reload = await ctx.inject({
        method: 'GET',
        url: String(posted.headers.location),
        headers: { cookie: dev.cookie },
      });
      assert.doesNotMatch(reload.body, /ghcs_/, 'shown once');

      const user = await signUp(ctx);
      const token = await tokenOf(user, clientId, secret);
      const page = await ctx.inject({
        method: 'GET',
        url: '/api-platform/developer/authorized-apps',
        headers: { cookie: user.cookie },
      });
      assert.match(page.body, /Web App/);
      assert.match(page.body, /See your stats: XP, level, ELO, kills and achievements/);
      const action = /action="([^"]+\/revoke)"/.exec(page.body)?.[1] ?? '';
      const res = await ctx.inject({
        method: 'POST',
        url: action,
        headers: { ...FORM, cookie: user.cookie },
        payload: `_csrf=${hiddenCsrf(page)}`,
      });
      assert.equal(res.statusCode, 303);
      assert.equal((await me(token)).statusCode, 401);
    });

    test('hub apps create, list and delete (its tokens die with it)', async () => {
      const owner = await signUp(ctx);
      const lines: string[] = [];
      const log = console.log;
      console.log = (line: string) => lines.push(line);
      try {
        await appsCommand(ctx.testDb.db, [
          'create',
          '--owner',
          String(owner.accountId),
          '--name',
          'CLI App',
          '--redirect-uri',
          REDIRECT_URI,
          '--json',
        ]);
      } finally {
        console.log = log;
      }
      const created = JSON.parse(lines[0] ?? '{}') as {
        id: number;
        client_id: string;
        client_secret: string;
      };
      assert.match(created.client_secret, /^ghcs_/);
      const user = await signUp(ctx);
      const token = await tokenOf(user, created.client_id, created.client_secret);
      assert.equal((await me(token)).statusCode, 200);
      await assert.rejects(appsCommand(ctx.testDb.db, ['create', '--owner', '1']), UsageError);
      await assert.rejects(
        appsCommand(ctx.testDb.db, [
          'create',
          '--owner',
          String(owner.accountId),
          '--name',
          'x',
          '--redirect-uri',
          'ftp://x',
        ]),
        /must use https/,
      );
      console.log = () => undefined;
      try {
        await appsCommand(ctx.testDb.db, ['delete', String(created.id)]);
      } finally {
        console.log = log;
      }
      const rows = await ctx.testDb.db.kysely
        .selectFrom('oauth_store')
        .select('id')
        .where('client_id', '=', created.client_id)
        .execute();
      assert.equal(rows.length, 0, 'grants and tokens removed');
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'apps'], {
        encoding: 'utf8',
        env: {
          ...process.env,
          DATABASE_URL: ctx.testDb.url.startsWith('sqlite:') ? ctx.testDb.url : 'sqlite::memory:',
        },
      });
      assert.equal(result.status, 2);
      assert.match(result.stderr, /hub apps create --owner USER_ID/);
    });
  });
}

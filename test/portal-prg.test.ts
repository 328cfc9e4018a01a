import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { FLASH_TTL_MS } from '../src/modules/portal/flash.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';
import { cookieNamed, FORM, GOOD_PASSWORD, hiddenCsrf, PORTAL, uniqueName } from './helpers/portal.js';

const SECRET = /ghk_[0-9A-Za-z]{38}/;
const FLASHED = (path: string) => new RegExp(`^${PORTAL}${path}\\?flash=[A-Za-z0-9_-]{22}$`);

for (const dialect of testDialects()) {
  describe(`portal forms: post/redirect/get (${dialect})`, () => {
    let testDb: TestDb;
    let app: FastifyInstance;
    let clock = Date.now();
    const logged: string[] = [];
    before(async () => {
      testDb = await openTestDb(dialect);
      app = await buildApp({
        db: testDb.db,
        config: { LOG_LEVEL: 'trace', CACHE_TTL_MS: 0, TRUST_PROXY: false },
        logStream: { write: (line: string) => logged.push(line) },
        now: () => clock,
      });
    });
    after(async () => {
      await app.close();
      await testDb.drop();
    });

    const get = (url: string, cookie: string) => app.inject({ method: 'GET', url, headers: { cookie } });
    // Each visitor comes from an address of its own: sign-ups are limited per address.
    let visitor = 0;
    const post = (path: string, cookie: string, body: Record<string, string>, remoteAddress = '127.0.0.1') =>
      app.inject({
        method: 'POST',
        url: `${PORTAL}${path}`,
        headers: { ...FORM, cookie },
        payload: new URLSearchParams(body).toString(),
        remoteAddress,
      });
    const flashRows = () => testDb.db.kysely.selectFrom('portal_flashes').selectAll().execute();

    /** Signs up through the form, as a browser does; returns the session cookie and its token. */
    async function browserSession(): Promise<{ cookie: string; csrf: string }> {
      const form = await get(`${PORTAL}/sign-up`, '');
      const formCookie = cookieNamed(form, 'hub_form_csrf') ?? '';
      const res = await post(
        '/sign-up',
        formCookie,
        { username: uniqueName('Prg'), password: GOOD_PASSWORD, _csrf: hiddenCsrf(form) },
        `198.18.0.${++visitor}`,
      );
      assert.equal(res.statusCode, 303);
      const cookie = cookieNamed(res, 'hub_session') ?? '';
      return { cookie, csrf: hiddenCsrf(await get(`${PORTAL}/keys`, cookie)) };
    }
    const keyCount = async (cookie: string) =>
      (await get(`${PORTAL}/my-keys`, cookie)).json<{ keys: unknown[] }>().keys.length;

    it('creating a key redirects; the page shows the secret once, to its session only', async () => {
      const owner = await browserSession();
      const other = await browserSession();
      logged.length = 0;
      const created = await post('/keys/new', owner.cookie, { name: 'Discord bot', _csrf: owner.csrf });
      assert.equal(created.statusCode, 303);
      const location = String(created.headers.location);
      assert.match(location, FLASHED('/keys/created'));
      assert.equal(created.body, '');

      // Waiting server-side, encrypted: the row does not hold the secret in any form we can find.
      const rows = await flashRows();
      assert.equal(rows.length, 1);
      assert.ok(
        !SECRET.test(rows[0]?.payload ?? '') &&
          !SECRET.test(Buffer.from(rows[0]?.payload ?? '', 'base64url').toString('latin1')),
      );

      // Another session cannot take it (and does not use it up).
      const stranger = await get(location, other.cookie);
      assert.equal(stranger.statusCode, 200);
      assert.doesNotMatch(stranger.body, SECRET);
      assert.equal((await get(location, '')).statusCode, 303, 'signed out: to sign-in');

      const shown = await get(location, owner.cookie);
      assert.equal(shown.statusCode, 200);
      assert.equal(shown.headers['cache-control'], 'no-store');
      const secret = SECRET.exec(shown.body)?.[0] ?? '';
      assert.ok(secret, 'the secret is shown');
      assert.match(shown.body, /Key “Discord bot” created/);
      assert.deepEqual(await flashRows(), [], 'taken: gone from the database');

      // Reload and back button: the page says it was shown, nothing is created.
      const reload = await get(location, owner.cookie);
      assert.equal(reload.statusCode, 200);
      assert.doesNotMatch(reload.body, SECRET);
      assert.match(reload.body, /Key already shown/);
      assert.equal(await keyCount(owner.cookie), 1);

      const user = await factories(testDb.db).makeUser();
      const call = await app.inject({
        url: `/api-platform/v1/users/${user.id}`,
        headers: { 'x-api-key': secret },
      });
      assert.equal(call.statusCode, 200, 'the key shown is the key created');
      assert.ok(logged.length > 0);
      for (const line of logged) assert.ok(!line.includes(secret.slice(4)), `logged: ${line}`);
    });

    it('a flash not picked up within its lifetime is gone, and swept by the next one', async () => {
      const owner = await browserSession();
      const created = await post('/keys/new', owner.cookie, { name: 'late', _csrf: owner.csrf });
      clock += FLASH_TTL_MS + 1;
      const late = await get(String(created.headers.location), owner.cookie);
      assert.doesNotMatch(late.body, SECRET);
      assert.match(late.body, /Key already shown/);
      assert.equal((await flashRows()).length, 1, 'expired, not yet swept');
      await post('/keys/new', owner.cookie, { name: 'next', _csrf: owner.csrf });
      const rows = await flashRows();
      assert.equal(rows.length, 1);
      assert.ok((rows[0]?.expires_at ?? 0) > clock);
    });

    it('every form answers 303; errors and notices show once and a reload repeats nothing', async () => {
      // sign-up with a weak password
      const form = await get(`${PORTAL}/sign-up`, '');
      const formCookie = cookieNamed(form, 'hub_form_csrf') ?? '';
      const csrf = hiddenCsrf(form);
      const username = uniqueName('Again');
      const weak = await post('/sign-up', formCookie, { username, password: 'short', _csrf: csrf });
      assert.equal(weak.statusCode, 303);
      assert.match(String(weak.headers.location), FLASHED('/sign-up'));
      const weakPage = await get(String(weak.headers.location), formCookie);
      assert.match(weakPage.body, /Password must be 10 to 128 characters\./);
      assert.match(weakPage.body, new RegExp(`value="${username}"`), 'the username is filled in again');
      assert.doesNotMatch(weakPage.body, /value="short"/, 'never the password');
      assert.doesNotMatch((await get(String(weak.headers.location), formCookie)).body, /role="alert"/);

      // a wrong password at sign-in: no session, the error once
      const created = await post('/sign-up', formCookie, { username, password: GOOD_PASSWORD, _csrf: csrf });
      assert.equal(created.statusCode, 303);
      const wrong = await post('/sign-in', formCookie, { username, password: 'wrong-one-123', _csrf: csrf });
      assert.equal(wrong.statusCode, 303);
      assert.match(String(wrong.headers.location), FLASHED('/sign-in'));
      assert.equal(cookieNamed(wrong, 'hub_session'), undefined);
      const wrongPage = await get(String(wrong.headers.location), formCookie);
      assert.match(wrongPage.body, /role="alert"[^>]*>\s*The username or password is incorrect\./);
      assert.doesNotMatch((await get(String(wrong.headers.location), formCookie)).body, /role="alert"/);
      const signedIn = await post('/sign-in', formCookie, { username, password: GOOD_PASSWORD, _csrf: csrf });
      assert.equal(signedIn.statusCode, 303);
      assert.equal(signedIn.headers.location, `${PORTAL}/keys`);
      const session = cookieNamed(signedIn, 'hub_session') ?? '';
      const token = hiddenCsrf(await get(`${PORTAL}/keys`, session));

      // a key without a name: the error once, nothing created
      const nameless = await post('/keys/new', session, { name: '  ', _csrf: token });
      assert.equal(nameless.statusCode, 303);
      assert.match(String(nameless.headers.location), FLASHED('/keys'));
      assert.match(
        (await get(String(nameless.headers.location), session)).body,
        /Give the key a name of 1 to 100/,
      );
      assert.doesNotMatch((await get(String(nameless.headers.location), session)).body, /role="alert"/);
      assert.equal(await keyCount(session), 0);

      // revoke: the notice once
      await post('/keys/new', session, { name: 'short-lived', _csrf: token });
      const list = await get(`${PORTAL}/keys`, session);
      const id = /\/keys\/(\d+)\/revoke"/.exec(list.body)?.[1] ?? '';
      const revoked = await post(`/keys/${id}/revoke`, session, { _csrf: token });
      assert.equal(revoked.statusCode, 303);
      assert.match(String(revoked.headers.location), FLASHED('/keys'));
      assert.match(
        (await get(String(revoked.headers.location), session)).body,
        /The key “short-lived” was revoked\./,
      );
      assert.doesNotMatch((await get(String(revoked.headers.location), session)).body, /was revoked/);

      // sign-out
      const out = await post('/sign-out', session, { _csrf: token });
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, `${PORTAL}/sign-in`);
    });

    it('treats a flash altered in the database as absent', async () => {
      const owner = await browserSession();
      const created = await post('/keys/new', owner.cookie, { name: 'tampered', _csrf: owner.csrf });
      const id = new URL(String(created.headers.location), 'http://x').searchParams.get('flash') ?? '';
      const row = (await flashRows()).find((r) => r.id === id);
      assert.ok(row);
      const bytes = Buffer.from(row.payload, 'base64url');
      bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
      await testDb.db.kysely
        .updateTable('portal_flashes')
        .set({ payload: bytes.toString('base64url') })
        .where('id', '=', id)
        .execute();
      const page = await get(String(created.headers.location), owner.cookie);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Key already shown/);
    });

    it('ignores a malformed or unknown flash id', async () => {
      const owner = await browserSession();
      for (const flash of ['x', 'A'.repeat(22), '%00', 'A'.repeat(2000)]) {
        const res = await get(`${PORTAL}/keys/created?flash=${flash}`, owner.cookie);
        assert.equal(res.statusCode, 200, flash);
        assert.match(res.body, /Key already shown/);
        assert.equal((await get(`${PORTAL}/keys?flash=${flash}`, owner.cookie)).statusCode, 200);
      }
    });
  });
}

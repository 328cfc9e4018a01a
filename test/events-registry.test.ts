import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountsRepo } from '../src/modules/accounts/repo.js';
import { appsRepo } from '../src/modules/apps/repo.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { serversRepo } from '../src/modules/servers/repo.js';
import { openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { assertCatalogued, eventsAfter, lastEventId } from './helpers/events.js';
import { failWritesTo } from './helpers/fail-writes.js';
import { factories } from './helpers/factories.js';

/**
 * Registry changes tell their events in their own transaction: game servers (the operator's
 * commands and the poller), API keys (private to their owner) and OAuth apps (private to the app).
 */
for (const dialect of testDialects()) {
  describe(`registry events (${dialect})`, () => {
    let testDb: TestDb;
    before(async () => {
      testDb = await openTestDb(dialect);
    });
    after(() => testDb.drop());
    const told = async (work: () => Promise<unknown>) => {
      const start = await lastEventId(testDb.db.kysely);
      await work();
      const events = await eventsAfter(testDb.db.kysely, start);
      assertCatalogued(events);
      return events;
    };

    it('servers: added, polled online, new map and players, offline, moved, removed', async () => {
      const servers = serversRepo(testDb.db.kysely);
      const at = Date.now();
      let id = 0;
      const events = await told(async () => {
        ({ id } = await servers.add({
          name: 'Hub #1',
          game: 'cs2',
          ip: '203.0.113.9',
          port: 27015,
          query_port: null,
          token_hash: 'h'.repeat(64),
          created_at: at,
        }));
        await servers.markOnline(id, { players: 3, max_players: 10, map: 'de_dust2' }, at);
        await servers.markOnline(id, { players: 3, max_players: 10, map: 'de_dust2' }, at);
        await servers.markOnline(id, { players: 5, max_players: 10, map: 'de_inferno' }, at);
        await servers.markFailure(id, 2, at);
        await servers.markFailure(id, 2, at);
        await servers.setRegion(id, 'eu-west', at);
        await servers.remove(id, at);
      });
      assert.deepEqual(
        events.map((e) => [e.type, e.data.status ?? e.data.map ?? e.data.players ?? e.data.region ?? null]),
        [
          ['server.added', 'unassigned'],
          ['server.status_changed', 'online'],
          ['server.map_changed', 'de_dust2'],
          ['server.players_changed', 3],
          ['server.map_changed', 'de_inferno'],
          ['server.players_changed', 5],
          ['server.status_changed', 'offline'],
          ['server.region_changed', 'eu-west'],
          ['server.removed', null],
        ],
      );
      assert.ok(events.every((e) => e.data.server_id === id && e.user_id === null));
    });

    it('keys: an owned key is told to its owner only; an operator key tells nobody', async () => {
      const made = factories(testDb.db);
      const owner = (await made.makeUser()).id;
      const keys = keysRepo(testDb.db.kysely);
      let keyId = 0;
      let secret = '';
      const events = await told(async () => {
        ({ id: keyId, secret } = await made.makeKey({ userId: owner, tier: null }));
        await keys.setAllowedOrigins(keyId, 'https://a.example https://b.example');
        await keys.revoke(keyId, Date.now());
        await keys.revoke(keyId, Date.now());
        await made.makeKey({ userId: null });
      });
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id, e.data.key_id]),
        [
          ['key.created', owner, keyId],
          ['key.origins_changed', owner, keyId],
          ['key.revoked', owner, keyId],
        ],
      );
      assert.deepEqual(events[1]?.data.allowed_origins, ['https://a.example', 'https://b.example']);
      // only the display prefix, never the secret
      assert.ok(secret.startsWith(String(events[0]?.data.prefix)), "the key's display prefix");
      for (const e of events) assert.ok(!JSON.stringify(e.data).includes(secret), e.type);
    });

    it('apps: every change is told to the app itself', async () => {
      const made = factories(testDb.db);
      const owner = (await made.makeUser()).id;
      const apps = appsRepo(testDb.db.kysely);
      let appId = 0;
      const events = await told(async () => {
        const app = await apps.create({
          clientId: 'app_events_test',
          ownerId: owner,
          name: 'Frag Stats',
          kind: 'confidential',
          redirectUris: ['https://fragstats.example.com/callback'],
          homepageUrl: null,
          logoUrl: null,
          secretHash: 'x'.repeat(64),
          now: Date.now(),
        });
        appId = app.id;
        await apps.update(app.id, { name: 'Frag Stats 2' }, Date.now());
        await apps.setSecretHash(app.id, 'y'.repeat(64), Date.now());
        await apps.delete(app.id);
      });
      assert.deepEqual(
        events.map((e) => [e.type, e.app_id, e.user_id, e.data.name]),
        [
          ['app.created', appId, null, 'Frag Stats'],
          ['app.updated', appId, null, 'Frag Stats 2'],
          ['app.secret_rotated', appId, null, 'Frag Stats 2'],
          ['app.deleted', appId, null, 'Frag Stats 2'],
        ],
      );
    });

    it('accounts: created, and a plan change told to the account only', async () => {
      const accounts = accountsRepo(testDb.db.kysely);
      let id = 0;
      const events = await told(async () => {
        ({ id } = await accounts.create({ username: 'eventful', passwordHash: 'x', now: Date.now() }));
        await accounts.update(id, { subscription: 'premium' });
        await accounts.update(id, { password_hash: 'y' });
      });
      assert.deepEqual(
        events.map((e) => [e.type, e.user_id, e.data.tier ?? e.data.username]),
        [
          ['account.created', id, 'eventful'],
          ['account.tier_changed', id, 'premium'],
        ],
      );
    });

    it('a registry change whose event cannot be written does not happen', async () => {
      const servers = serversRepo(testDb.db.kysely);
      const before = (await servers.list()).length;
      const failing = await failWritesTo(testDb.db, 'events');
      try {
        await assert.rejects(
          servers.add({
            name: 'Never',
            game: 'cs2',
            ip: '203.0.113.10',
            port: 27016,
            query_port: null,
            token_hash: 'z'.repeat(64),
            created_at: Date.now(),
          }),
        );
      } finally {
        await failing.restore();
      }
      assert.equal((await servers.list()).length, before);
    });
  });
}

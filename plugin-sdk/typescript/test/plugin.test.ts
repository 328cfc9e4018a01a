import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HubPlugin, type PluginOptions } from '../src/index.js';

/**
 * The SDK against a stand-in hub over real HTTP: what it stores (once per client id, in arrival
 * order), and answers the tests switch (503 with Retry-After 0, 401). The live hub runs the same
 * behaviours in `npm run test:plugins`.
 */
class StandIn {
  readonly stored: string[] = [];
  readonly heartbeats: Record<string, unknown>[] = [];
  answer: 200 | 503 | 401 = 200;
  private readonly seen = new Set<string>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
        if (this.answer === 401) return reply(401, { code: 'invalid_server_token' });
        if (this.answer === 503) return reply(503, { code: 'unavailable' }, { 'retry-after': '0' });
        if (req.url === '/api-platform/ingest/heartbeat') {
          this.heartbeats.push(JSON.parse(text) as Record<string, unknown>);
          return reply(200, {
            server_id: 7,
            status: 'online',
            heartbeat_interval_s: 10,
            offline_after_s: 60,
          });
        }
        const { events } = JSON.parse(text) as { events: { client_id: string }[] };
        let duplicates = 0;
        for (const e of events) {
          if (this.seen.has(e.client_id)) duplicates++;
          else {
            this.seen.add(e.client_id);
            this.stored.push(e.client_id);
          }
        }
        reply(200, { accepted: events.length - duplicates, duplicates, rejected: 0, errors: [] });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'plugin-sdk-test-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const open = (hubUrl: string, spoolDir: string, extra: Partial<PluginOptions> = {}) =>
  new HubPlugin({ hubUrl, token: '1'.repeat(32), spoolDir, flushIntervalMs: 10, ...extra }).start();
/** past the wait after the stand-in's 503: its `Retry-After: 0` still waits the 100 ms floor (backoff.json) */
const pastBackoff = () => new Promise((resolve) => setTimeout(resolve, 150));
const maps = (p: HubPlugin, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => p.mapChange(`map ${from + i}`).client_id);

describe('HubPlugin against a stand-in hub', () => {
  it('delivers in order, in batches, once; a resent spool counts as duplicates', async () => {
    const hub = await new StandIn().start();
    try {
      const p = await open(hub.url, tempDir(), { maxBatchEvents: 4 });
      const ids = maps(p, 10);
      assert.equal(await p.flush(), true);
      await p.close();
      assert.deepEqual(hub.stored, ids);
      assert.equal(p.counters.sent, 10);
      assert.match(ids[0] ?? '', /^[0-9a-f]{16}-1$/);
    } finally {
      await hub.close();
    }
  });

  it('spools while the hub fails, sends the spool first when it is back, each event once', async () => {
    const hub = await new StandIn().start();
    try {
      hub.answer = 503;
      const p = await open(hub.url, tempDir());
      const first = maps(p, 5);
      assert.equal(await p.flush(), false);
      assert.equal(p.counters.spooled, 5);
      hub.answer = 200;
      const later = maps(p, 3, 5);
      await pastBackoff();
      assert.equal(await p.flush(), true);
      await p.close();
      assert.deepEqual(hub.stored, [...first, ...later]);
      assert.equal(p.counters.sent, 8);
      assert.equal(p.counters.dropped, 0);
    } finally {
      await hub.close();
    }
  });

  it('closes with an unreachable hub into the spool; a restart sends it, a resent copy is counted once', async () => {
    const dead = await new StandIn().start();
    await dead.close(); // its port now refuses connections
    const dir = tempDir();
    const first = await open(dead.url, dir, { closeTimeoutMs: 1000 });
    const ids = maps(first, 6);
    await first.close();
    assert.equal(first.counters.spooled, 6);
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    const hub = await new StandIn().start();
    try {
      const second = await open(hub.url, dir);
      assert.equal(second.counters.spooled, 6, 'found in the spool');
      const more = maps(second, 2, 6);
      assert.equal(await second.flush(), true);
      await second.close();
      assert.deepEqual(hub.stored, [...ids, ...more], 'the spool first, then the new events');
      const third = await open(hub.url, copy);
      assert.equal(await third.flush(), true);
      await third.close();
      assert.equal(third.counters.duplicates, 6);
      assert.equal(hub.stored.length, 8);
    } finally {
      await hub.close();
    }
  });

  it('bounds the spool: the oldest are dropped and counted', async () => {
    const hub = await new StandIn().start();
    try {
      hub.answer = 503;
      const p = await open(hub.url, tempDir(), { maxSpoolEvents: 5 });
      maps(p, 4);
      assert.equal(await p.flush(), false);
      const kept = maps(p, 4, 4);
      assert.equal(await p.flush(), false);
      assert.equal(p.counters.dropped, 3);
      hub.answer = 200;
      await pastBackoff();
      assert.equal(await p.flush(), true);
      await p.close();
      assert.equal(hub.stored.length, 5);
      assert.deepEqual(hub.stored.slice(1), kept, 'the newest survive');
    } finally {
      await hub.close();
    }
  });

  it('stops everything on 401 and keeps the events in its spool', async () => {
    const hub = await new StandIn().start();
    try {
      hub.answer = 401;
      let revoked = 0;
      const p = await open(hub.url, tempDir(), { onRevoked: () => revoked++ });
      maps(p, 3);
      assert.equal(await p.flush(), false);
      assert.equal(p.state, 'revoked');
      assert.equal(revoked, 1);
      assert.equal(p.pending, 3);
      await p.close();
      assert.equal(hub.stored.length, 0);
    } finally {
      await hub.close();
    }
  });

  it('sends a heartbeat with the status and the plugin name when it starts', async () => {
    const hub = await new StandIn().start();
    try {
      const p = await open(hub.url, tempDir(), {
        name: 'test-plugin/2',
        status: () => ({ players: 3, max_players: 20, map: 'arena', version: '1.0' }),
      });
      while (p.counters.heartbeats === 0) await new Promise((r) => setTimeout(r, 10));
      await p.close();
      assert.equal(p.serverId, 7);
      assert.deepEqual(hub.heartbeats[0], {
        players: 3,
        max_players: 20,
        map: 'arena',
        version: '1.0',
        plugin: 'test-plugin/2 @gaming-hub/plugin-sdk/0.1.0',
      });
    } finally {
      await hub.close();
    }
  });
});

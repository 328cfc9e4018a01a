import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { connect } from '../src/db/connect.js';
import { hashToken } from '../src/modules/servers/tokens.js';
import { factories } from './helpers/factories.js';

const dir = mkdtempSync(join(tmpdir(), 'hub-cli-'));
const DATABASE_URL = `sqlite:${join(dir, 'hub.sqlite')}`;
const hub = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATABASE_URL },
    encoding: 'utf8',
  });

describe('hub servers', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('adds a server, prints its token once as JSON, lists and removes it', async () => {
    const added = hub(
      'servers',
      'add',
      '--name',
      'EU CS2 #1',
      '--game',
      'cs2',
      '--ip',
      '203.0.113.10',
      '--port',
      '27015',
      '--query-port',
      '27016',
      '--json',
    );
    assert.equal(added.status, 0, added.stderr);
    const body = JSON.parse(added.stdout) as { id: number; token: string; game: string; query_port: number };
    assert.equal(body.id, 1);
    assert.match(body.token, /^[1-9]\d{31}$/);
    assert.equal(body.query_port, 27016);

    const db = connect(DATABASE_URL);
    try {
      const row = await db.kysely
        .selectFrom('game_servers')
        .select(['token_hash', 'status', 'name'])
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { token_hash: hashToken(body.token), status: 'offline', name: 'EU CS2 #1' });
    } finally {
      await db.close();
    }

    const list = hub('servers', 'list', '--json');
    assert.equal(list.status, 0, list.stderr);
    assert.doesNotMatch(list.stdout, new RegExp(body.token));
    assert.deepEqual(
      (JSON.parse(list.stdout) as { id: number; address: string }[]).map((s) => [s.id, s.address]),
      [[1, '203.0.113.10:27015']],
    );
    assert.equal(hub('servers', 'remove', '1').status, 0);
    assert.equal(hub('servers', 'remove', '1').status, 2);
    assert.deepEqual(JSON.parse(hub('servers', 'list', '--json').stdout) as unknown, []);
  });

  it('registers a server in a region, moves it to another, and the preview list shows it', async () => {
    const added = hub(
      'servers',
      'add',
      ...['--name', 'NA Rust', '--game', 'rust', '--ip', '198.51.100.7', '--port', '28015'],
      ...['--region', 'na-east', '--json'],
    );
    assert.equal(added.status, 0, added.stderr);
    const { id, region } = JSON.parse(added.stdout) as { id: number; region: string };
    assert.equal(region, 'na-east');
    const regionOf = () =>
      (JSON.parse(hub('servers', 'list', '--json').stdout) as { id: number; region: string }[]).find(
        (s) => s.id === id,
      )?.region;
    const moved = hub('servers', 'update', String(id), '--region', 'eu-central');
    assert.equal(moved.status, 0, moved.stderr);
    assert.equal(regionOf(), 'eu-central');
    assert.equal(hub('servers', 'update', String(id), '--region', 'mars').status, 2);
    assert.equal(hub('servers', 'update', String(id)).status, 2);
    assert.equal(hub('servers', 'update', '9999', '--region', 'eu-west').status, 2);
    const unset = hub(
      'servers',
      'add',
      ...['--name', 'Somewhere', '--game', 'cs2', '--ip', '198.51.100.8', '--port', '27015', '--json'],
    );
    assert.equal((JSON.parse(unset.stdout) as { region: string }).region, 'unassigned');

    const db = connect(DATABASE_URL);
    const app = await buildApp({
      db,
      config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false },
    });
    try {
      const { secret } = await factories(db).makeKey();
      const res = await app.inject({
        method: 'GET',
        url: '/v1/servers?region=eu-central',
        headers: { authorization: `Bearer ${secret}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json<{ data: unknown[] }>().data, [
        {
          id: String(id),
          name: 'NA Rust',
          game: 'rust',
          players: 0,
          max_players: 0,
          status: 'offline',
          uptime: null,
          region: 'eu-central',
        },
      ]);
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('rejects bad options with exit code 2', () => {
    for (const args of [
      ['--name', 'x', '--game', 'quake', '--ip', '1.2.3.4', '--port', '1'],
      ['--name', 'x', '--game', 'cs2', '--ip', 'not-an-ip', '--port', '1'],
      ['--name', 'x', '--game', 'cs2', '--ip', '1.2.3.4', '--port', '0'],
      ['--name', 'x', '--game', 'cs2', '--ip', '1.2.3.4', '--port', '65536'],
      ['--name', 'x', '--game', 'cs2', '--ip', '1.2.3.4'],
      ['--name', 'x', '--game', 'cs2', '--ip', '1.2.3.4', '--port', '1', '--region', 'EU-WEST'],
    ]) {
      const r = hub('servers', 'add', ...args);
      assert.equal(r.status, 2, args.join(' '));
    }
  });

  it('documents the ingest endpoints in the OpenAPI document under the Ingest tag', async () => {
    const db = connect(DATABASE_URL);
    const app = await buildApp({ db, config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false } });
    try {
      const doc = (await app.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' })).json<{
        paths: Partial<Record<string, Partial<Record<string, { tags?: string[]; description?: string }>>>>;
      }>();
      for (const path of [
        '/api-platform/ingest/logs',
        '/api-platform/ingest/logs/{token}',
        '/api-platform/ingest/events',
      ]) {
        const op = doc.paths[path]?.post;
        assert.ok(op, path);
        assert.deepEqual(op.tags, ['Ingest'], path);
        assert.match(op.description ?? '', /ELO/);
      }
    } finally {
      await app.close();
      await db.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HubOAuth } from '@gaming-hub/client';
import { actAsUser } from '../scripts/clients/consent.mjs';
import { cliScratch, hub, hubJson, serve, stop, type Served } from './helpers/cli.js';

/**
 * Issue 26 end to end with the real CLI: `hub servers add --channel plugin`, a served hub, a
 * simulated plugin over HTTP (heartbeats, a long-poll, acknowledgements) and an app acting for the
 * owner through OAuth: the server is online from its heartbeats, a `/v1` command comes back with the
 * plugin's output, a late one is read later, and `hub servers rotate-token` overlaps the tokens.
 */
const REDIRECT = 'http://127.0.0.1:9/callback';
const OWNER_PASSWORD = 'plugin-owner-amber-field';
const BEAT = { players: 4, max_players: 16, map: 'world', version: '1.21.1', plugin: 'e2e-plugin/1.0' };

describe('a plugin-channel game server against a live hub (issue 26)', () => {
  const { tempDb } = cliScratch('hub-plugin-e2e-');
  let db: string;
  let served: Served | undefined;
  const base = (): string => {
    assert.ok(served, 'hub serve is running');
    return served.url;
  };
  let server: { id: number; token: string; channel: string };
  let access: string;
  let keys = 0;

  const json = <T>(args: string[], input?: string): T => hubJson<T>(db, args, input);
  const call = async (
    path: string,
    init: { method?: string; token?: string; body?: unknown; bearer?: string },
  ) => {
    const res = await fetch(new URL(path, base()), {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.bearer ?? init.token ?? ''}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(path.startsWith('/v1/') && init.method === 'POST' ? { 'idempotency-key': `e2e-${++keys}` } : {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return {
      status: res.status,
      location: res.headers.get('location'),
      body: (await res.json()) as Record<string, unknown>,
    };
  };
  const data = (body: Record<string, unknown>) => body.data as Record<string, unknown>;

  before(async () => {
    db = tempDb();
    assert.equal(hub(db, ['migrate']).status, 0);
    const owner = json<{ id: number }>(
      ['users', 'create', 'plugin_owner', '--password-stdin'],
      `${OWNER_PASSWORD}\n`,
    );
    const app = json<{ client_id: string }>([
      'apps',
      'create',
      ...['--owner', String(owner.id), '--name', 'Console', '--redirect-uri', REDIRECT, '--public'],
    ]);
    server = json([
      'servers',
      'add',
      ...['--name', 'Paper behind NAT', '--game', 'minecraft', '--ip', '127.0.0.1', '--port', '9'],
      ...['--owner', String(owner.id), '--channel', 'plugin'],
    ]);
    assert.equal(server.channel, 'plugin');
    served = await serve(db, [], { POLL_INTERVAL_MS: '1000', POLL_TIMEOUT_MS: '200' });
    const oauth = new HubOAuth({ baseUrl: base(), clientId: app.client_id, redirectUri: REDIRECT });
    const pending = await oauth.authorizationUrl({ scope: 'servers:command', extra: { prompt: 'consent' } });
    const tokens = await oauth.handleCallback(
      await actAsUser(base(), pending.url, { username: 'plugin_owner', password: OWNER_PASSWORD }, REDIRECT),
      pending,
    );
    access = tokens.accessToken;
  });
  after(async () => {
    if (served) await stop(served);
  });

  it('is online from its heartbeats although nothing answers its query port', async () => {
    const beat = await call('/api-platform/ingest/heartbeat', {
      method: 'POST',
      token: server.token,
      body: BEAT,
    });
    assert.equal(beat.status, 200);
    assert.equal(beat.body.offline_after_s, 60);
    // the embedded poller runs every second meanwhile; the fresh heartbeat keeps the server online
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const listed = json<{ id: number; status: string; players: string }[]>(['servers', 'list']);
    assert.deepEqual(
      listed.map((s) => [s.id, s.status, s.players]),
      [[server.id, 'online', '4/16']],
    );
  });

  it('returns a command’s output from the plugin long-polling it, and a late one later', async () => {
    const polled = call('/api-platform/ingest/commands?wait=20', { token: server.token });
    const sent = call(`/v1/servers/${server.id}/command`, {
      method: 'POST',
      bearer: access,
      body: { command: 'list', wait_ms: 10_000 },
    });
    const [command] = data((await polled).body) as unknown as { id: string; command: string }[];
    assert.equal(command?.command, 'list');
    const ack = await call(`/api-platform/ingest/commands/${command.id}/result`, {
      method: 'POST',
      token: server.token,
      body: { status: 'ok', output: 'There are 4 of a max of 16 players online', duration_ms: 2 },
    });
    assert.deepEqual(ack.body, { recorded: true });
    const answer = await sent;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(data(answer.body).output, 'There are 4 of a max of 16 players online');

    const late = await call(`/v1/servers/${server.id}/command`, {
      method: 'POST',
      bearer: access,
      body: { command: 'save-all', wait_ms: 0 },
    });
    assert.equal(late.status, 202);
    assert.equal(late.location, `/v1/servers/${server.id}/commands/${String(data(late.body).id)}`);
    const [taken] = data(
      (await call('/api-platform/ingest/commands', { token: server.token })).body,
    ) as unknown as {
      id: string;
    }[];
    await call(`/api-platform/ingest/commands/${taken?.id ?? ''}/result`, {
      method: 'POST',
      token: server.token,
      body: { status: 'ok', output: 'Saved the game' },
    });
    const read = await call(`/v1/servers/${server.id}/commands/${String(data(late.body).id)}`, {
      bearer: access,
    });
    assert.deepEqual([data(read.body).status, data(read.body).output], ['ok', 'Saved the game']);
  });

  it('rotates the token with an overlap, and removal revokes both at once', async () => {
    const rotated = json<{ token: string; previous_valid_until: string }>([
      'servers',
      'rotate-token',
      String(server.id),
      '--overlap',
      '1h',
    ]);
    const ahead = Date.parse(rotated.previous_valid_until) - Date.now();
    assert.ok(ahead > 3_500_000 && ahead <= 3_600_000, rotated.previous_valid_until);
    for (const token of [server.token, rotated.token])
      assert.equal(
        (await call('/api-platform/ingest/heartbeat', { method: 'POST', token, body: BEAT })).status,
        200,
      );
    const immediate = json<{ token: string }>([
      'servers',
      'rotate-token',
      String(server.id),
      '--overlap',
      '0',
    ]);
    assert.equal(
      (await call('/api-platform/ingest/heartbeat', { method: 'POST', token: rotated.token, body: BEAT }))
        .status,
      401,
    );
    assert.equal(hub(db, ['servers', 'remove', String(server.id)]).status, 0);
    const refused = await call('/api-platform/ingest/commands', { token: immediate.token });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'invalid_server_token');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliScratch, hub, serve, stop, type Served } from './helpers/cli.js';
import { openSse } from './helpers/sse.js';
import { receiver, verified } from './helpers/webhook-receiver.js';

interface FeedKill {
  server_id: number;
  killer: { user_id: number };
  victim: { user_id: number };
  weapon: string;
  headshot: boolean;
  occurred_at: string;
}
interface EventItem {
  type: string;
  data: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 250 ms until it returns a value, or fails after `ms` with `what`. */
async function within<T>(ms: number, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) assert.fail(`${what}: not within ${ms / 1000} s`);
    await sleep(250);
  }
}

/**
 * `hub serve --demo` runs a demo CS2 server that plays into the hub through the real ingest route.
 * A small seeded world (the demo players are its first ten accounts, linked to Steam ids) keeps
 * the start fast; `npm start`'s 500-user world is the same code (cli.e2e.test.ts).
 */
describe('hub serve --demo: the demo game server', () => {
  const { tempDb } = cliScratch('hub-demo-server-');
  const seeded = () => {
    const db = tempDb();
    const seed = hub(db, ['seed', '--users', '20', '--kills', '200', '--seed', '3']);
    assert.equal(seed.status, 0, seed.stderr);
    return db;
  };
  const keyOf = (served: Served) => {
    const key = /Demo key: +(ghk_\w+)/.exec(served.output())?.[1];
    assert.ok(key, served.output());
    return key;
  };
  const api = async <T>(served: Served, key: string, path: string): Promise<T> => {
    const res = await fetch(`${served.url}${path}`, {
      headers: path.startsWith('/v1/') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key },
    });
    const body = await res.text();
    assert.equal(res.status, 200, `${path}: ${body}`);
    return JSON.parse(body) as T;
  };
  const events = async (served: Served, key: string, types: string) =>
    (await api<{ data: EventItem[] }>(served, key, `/v1/events?types=${types}&limit=1000`)).data;

  it('plays CS2 matches through the ingest route: kills in the feed, rated matches, chat, then stops with the service', async () => {
    const db = seeded();
    // at the default log level: the access log shows the newcomer's requests, not the game's batches
    const served = await serve(db, ['--demo'], { LOG_LEVEL: 'info' });
    const startedAt = new Date().toISOString();
    const key = keyOf(served);
    const banner = /Demo server: "Demo CS2 server" \(id (\d+)\) plays CS2 matches among 10 demo players/.exec(
      served.output(),
    );
    assert.ok(banner, served.output());
    assert.match(served.output(), /start without it: --no-demo-server or DEMO_SERVER=off/);
    const serverId = Number(banner[1]);
    const ladder = async () =>
      new Map(
        (
          await api<{ leaderboard: { user_id: number; games: number }[] }>(
            served,
            key,
            '/api-platform/v1/stats/elo?game=cs2&limit=200',
          )
        ).leaderboard.map((p) => [p.user_id, p.games]),
      );
    const gamesBefore = await ladder();
    // the live stream (from now) tells the demo server's rounds within seconds
    const stream = await openSse(`${served.url}/v1/events/stream?types=round.started`, {
      authorization: `Bearer ${key}`,
    });
    const streamed = await stream.nextEvent(15_000);
    assert.equal(streamed.data.type, 'round.started');
    assert.equal(streamed.data.data.server_id, serverId);
    stream.close();

    // kills reach the feed when their round is settled: the first round takes a few seconds
    const kills = await within(20_000, 'kills of the demo server in the feed', async () => {
      const feed = await api<{ kills: FeedKill[] }>(served, key, '/api-platform/v1/killboard/feed?limit=50');
      const fresh = feed.kills.filter((k) => k.server_id === serverId && k.occurred_at >= startedAt);
      return fresh.length > 0 ? fresh : undefined;
    });
    for (const k of kills) {
      assert.ok(k.killer.user_id <= 10 && k.victim.user_id <= 10, 'the seated demo accounts');
      assert.notEqual(k.killer.user_id, k.victim.user_id);
    }

    // a match is played to its end and rated: match.ended, elo.changed, and the Elo ladder
    const ended = await within(90_000, 'a match.ended event of the demo server', async () => {
      const found = (await events(served, key, 'match.ended')).filter((e) => e.data.server_id === serverId);
      return found.length > 0 ? found : undefined;
    });
    const match = ended[0]?.data ?? {};
    assert.equal(Math.max(Number(match.team1_score), Number(match.team2_score)), 3);
    const elo = await events(served, key, 'elo.changed');
    assert.ok(elo.length >= 2, 'both teams rated');
    const gamesAfter = await ladder();
    const rated = [...gamesAfter].filter(([user, games]) => games > (gamesBefore.get(user) ?? 0));
    assert.equal(rated.length, 10, 'the ten demo players each have one more rated match on the ladder');
    assert.ok(rated.every(([user]) => user <= 10));
    const kinds = new Set(
      (await events(served, key, 'round.started,round.ended,match.started,kill.recorded')).map((e) => e.type),
    );
    assert.deepEqual([...kinds].sort(), ['kill.recorded', 'match.started', 'round.ended', 'round.started']);

    // the service's answer to the batches: every line taken, chat among them
    const report = await within(
      10_000,
      'the match report on stdout',
      async () =>
        /Demo server: match 1 on de_inferno ended \d:\d \(\d+ kills, \d+ headshots, (\d+) chat lines\); so far the hub took (\d+) log lines \((\d+) refused\)/.exec(
          served.output(),
        ) ?? undefined,
    );
    assert.ok(Number(report[1]) > 0, 'chat lines were written and taken');
    assert.ok(Number(report[2]) > 50);
    assert.equal(report[3], '0', 'no line refused');
    assert.match(served.output(), /"url":"\/api-platform\/v1\/killboard\/feed\?limit=50"/);
    assert.doesNotMatch(
      served.output(),
      /"url":"\/api-platform\/ingest/,
      'the batches are not in the access log',
    );

    assert.equal(await stop(served), 0);
  });

  it('delivers the demo server\u2019s events to a webhook registered on a local receiver, signed (Standard Webhooks)', async () => {
    const db = seeded();
    const local = await receiver();
    // the documented setting for a receiver on this machine (docs/events-and-webhooks.md)
    const served = await serve(db, ['--demo'], { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    try {
      const serverId = Number(/Demo server: "Demo CS2 server" \(id (\d+)\)/.exec(served.output())?.[1]);
      // a newcomer's own key (webhooks belong to an account): sign up, then create a key
      const portal = `${served.url}/api-platform/developer`;
      const json = { 'content-type': 'application/json' };
      const account = await fetch(`${portal}/accounts`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: 'hook_tester', password: 'violet-harbor-97' }),
      });
      assert.equal(account.status, 201, await account.clone().text());
      const { csrf_token: csrf } = (await account.json()) as { csrf_token: string };
      const cookie = (account.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const made = await fetch(`${portal}/keys`, {
        method: 'POST',
        headers: { ...json, cookie, 'x-csrf-token': csrf },
        body: JSON.stringify({ name: 'webhook test' }),
      });
      const { secret: key } = (await made.json()) as { secret: string };
      assert.equal(made.status, 201, key);
      const registered = await fetch(`${served.url}/v1/webhooks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': 'demo-hook',
        },
        body: JSON.stringify({ url: local.url, events: ['kill.recorded', 'round.started', 'match.started'] }),
      });
      const created = (await registered.json()) as { data: { secret: string } };
      assert.equal(registered.status, 201, JSON.stringify(created));
      const registeredAt = Date.now();
      // a round starts every few seconds and its kills follow: the first delivery comes within seconds
      const delivery = await within(30_000, 'a signed delivery of a demo event', () => {
        for (const receipt of local.receipts) {
          const event = verified(created.data.secret, receipt) as {
            type: string;
            data: { server_id?: number };
          };
          if (event.data.server_id === serverId) return Promise.resolve({ receipt, event });
        }
        return Promise.resolve(undefined);
      });
      assert.ok(['kill.recorded', 'round.started', 'match.started'].includes(delivery.event.type));
      assert.equal(delivery.receipt.headers['webhook-id'], (delivery.event as { id?: string }).id);
      process.stdout.write(
        `# demo webhook: first ${delivery.event.type} delivered ${delivery.receipt.at - registeredAt} ms after registration\n`,
      );
    } finally {
      assert.equal(await stop(served), 0);
      await local.close();
    }
  });

  it('--no-demo-server and DEMO_SERVER=off start the hub without it: nothing is played', async () => {
    const db = seeded();
    for (const [args, env, reason] of [
      [['--demo', '--no-demo-server'], {}, '--no-demo-server'],
      [['--demo'], { DEMO_SERVER: 'off' }, 'DEMO_SERVER=off'],
    ] as const) {
      const served = await serve(db, [...args], env);
      assert.match(served.output(), new RegExp(`Demo server: off \\(${reason}\\)`));
      const key = keyOf(served);
      // with the game on, a match and a round have started by then (a step every 400 ms)
      await sleep(4000);
      assert.deepEqual(await events(served, key, 'match.started,round.started,kill.recorded'), [], reason);
      assert.equal(await stop(served), 0);
    }
    const help = hub(db, ['serve', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--no-demo-server +with --demo: no demo game server \(also DEMO_SERVER=off/);
    const servers = JSON.parse(hub(db, ['servers', 'list', '--json']).stdout) as { name: string }[];
    assert.ok(!servers.some((s) => s.name === 'Demo CS2 server'), 'no demo server registered');
  });
});

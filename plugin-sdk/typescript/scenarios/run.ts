// The TypeScript SDK's implementation of plugin-sdk/scenarios.json, against the hub of
// `npm run test:plugins`: one JSON line per scenario on stdout.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HubPlugin, type PluginOptions } from '@gaming-hub/plugin-sdk';
import { control, dataOf, loadFixture, type Fixture } from './fixture.js';

const { fixture, scenarios } = loadFixture();
const ctl = control(fixture);
const only = process.argv.slice(2);

const server = (name: string) => {
  const s = fixture.servers[name];
  if (!s) throw new Error(`the fixture has no server named ${name}`);
  return s;
};
const plugin = (serverName: string, spoolDir: string, extra: Partial<PluginOptions> = {}) =>
  new HubPlugin({
    hubUrl: fixture.hub_url,
    token: server(serverName).token,
    spoolDir,
    name: 'scenarios/1',
    // short waits: the hub comes back within seconds in these scenarios
    requestTimeoutMs: 10_000,
    ...extra,
  });
const spoolDir = (name: string) => mkdtempSync(join(fixture.work_dir, `${name}-`));

/** kills between two players of the scenario's own, dated just now (inside the ingest window) */
function kills(p: HubPlugin, n: number, base: number): void {
  for (let i = 0; i < n; i++)
    p.send({
      type: 'kill',
      occurred_at: Date.now() - 1000,
      killer: { name: 'scenario killer', steam_id: String(76561198000000000n + BigInt(base)) },
      victim: { name: 'scenario victim', steam_id: String(76561198000000000n + BigInt(base + 1)) },
      weapon: 'rifle.ak',
    });
}

/** Polls until `done()` holds, every `every` ms; fails with what it last saw after `ms`. */
async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  ms = 60_000,
  every = 100,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

const online = (server: Record<string, unknown>) => server.status === 'online' || server.status === 'running';

const IMPLEMENTED: Record<string, (f: Fixture) => Promise<void>> = {
  async command_round_trip() {
    const id = server('commands').id;
    const p = await plugin('commands', spoolDir('commands'), {
      commands: {
        say: ({ args }) => `said: ${args}`,
        fail: () => {
          throw new Error('it failed');
        },
      },
    }).start();
    try {
      const said = await ctl.command(id, 'say hello', 10_000);
      assert.equal(said.status, 200, `answered in time: ${JSON.stringify(said)}`);
      assert.equal(dataOf(said).status, 'ok');
      assert.equal(dataOf(said).output, 'said: hello');
      await until('commands_run = 1', () => p.counters.commands_run === 1);
      const failed = await ctl.command(id, 'fail now', 10_000);
      assert.equal(failed.status, 200, JSON.stringify(failed));
      assert.equal(dataOf(failed).status, 'error');
      assert.equal(dataOf(failed).output, 'it failed');
    } finally {
      await p.close();
    }
  },

  async offline_command_expires() {
    const id = server('expiry').id;
    const queued = await ctl.command(id, 'say nobody', 0);
    assert.equal(queued.status, 202, `no plugin polls: 202 (${JSON.stringify(queued)})`);
    assert.equal(dataOf(queued).status, 'pending');
    const commandId = String(dataOf(queued).id);
    await until(
      'the command to expire',
      async () => dataOf(await ctl.commandStatus(id, commandId)).status === 'expired',
      180_000,
    );
    const ran: string[] = [];
    const p = await plugin('expiry', spoolDir('expiry'), {
      commands: { say: ({ args }) => (ran.push(args), 'said') },
    }).start();
    try {
      // one long-poll's worth: an expired command is never delivered, or skipped if it is
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(ran, [], 'an expired command never runs');
    } finally {
      await p.close();
    }
  },

  async heartbeat_online_offline() {
    const id = server('heartbeat').id;
    // the live status the poller and the heartbeats keep
    const row = async () => dataOf(await ctl.v1(`/v1/servers/${id}/status`));
    assert.ok(!online(await row()), 'offline before any heartbeat');
    const p = await plugin('heartbeat', spoolDir('heartbeat'), {
      status: () => ({ players: 3, max_players: 20, map: 'arena', version: '1.0' }),
    }).start();
    try {
      await until(
        'online with 3/20 on arena',
        async () => {
          const s = await row();
          return online(s) && s.players === 3 && s.max_players === 20 && s.map === 'arena';
        },
        30_000,
      );
    } finally {
      await p.close();
    }
    // silence: offline after the hub's offline_after_s (60 s by default) and the poller's next round
    // every 2 s: each read spends the owner's hourly quota, which later scenarios need too
    await until('offline after the silence', async () => !online(await row()), 180_000, 2000);
  },

  async linked_identity_progress() {
    const p = await plugin('links', spoolDir('links')).start();
    try {
      const issued = await ctl.linkCode();
      const code = dataOf(issued).code;
      assert.equal(typeof code, 'string', `a link code: ${issued.status} ${JSON.stringify(issued.body)}`);
      const steve = { name: 'Steve', minecraft_uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };
      const linked = await p.link(steve, String(code)).catch((e: unknown) => {
        throw new Error(`link with ${JSON.stringify(code)}: ${String(e)}`);
      });
      const before = dataOf(await ctl.v1(`/v1/users/${linked.user_id}/stats`));
      for (let i = 0; i < 3; i++)
        p.send({
          type: 'kill',
          occurred_at: Date.now() - 1000,
          killer: steve,
          victim: { name: 'Alex', minecraft_uuid: '853c80ef-3c37-49fd-aa49-938b674adae6' },
          weapon: 'diamond_sword',
        });
      assert.equal(await p.flush(), true);
      // the stats route is cached for a moment: poll until the kills show
      const kills = (stats: Record<string, unknown>) =>
        ((stats.combat ?? []) as { kills: number }[]).reduce((sum, c) => sum + c.kills, 0);
      const stats = () => ctl.v1(`/v1/users/${linked.user_id}/stats`).then(dataOf);
      await until(
        'the linked user to be credited 3 kills',
        async () => kills(await stats()) === kills(before) + 3,
        30_000,
      );
      assert.ok(Number((await stats()).total_xp) > Number(before.total_xp), 'the linked user gained XP');
    } finally {
      await p.close();
    }
  },

  async events_once_across_outage() {
    const id = server('outage').id;
    const p = await plugin('outage', spoolDir('outage')).start();
    try {
      kills(p, 40, 1000);
      assert.equal(await p.flush(), true, 'the first 40 reach the hub');
      assert.equal(p.counters.sent, 40);
      assert.equal(await ctl.kills(id), 40);
      await ctl.stopHub();
      kills(p, 60, 1000);
      assert.equal(await p.flush(), false, 'the hub is down: the flush does not complete');
      await until('the 60 in the spool', () => p.counters.spooled >= 60);
      assert.equal(p.counters.sent, 40);
      await ctl.startHub();
      await until('the spool to drain', () => p.pending === 0 && p.counters.sent === 100);
      assert.equal(await ctl.kills(id), 100, 'stored exactly once');
      assert.equal(p.counters.dropped, 0);
    } finally {
      await ctl.startHub();
      await p.close();
    }
  },

  async events_once_across_plugin_restart() {
    const id = server('restart').id;
    const dir = spoolDir('restart');
    await ctl.stopHub();
    try {
      const first = await plugin('restart', dir, { closeTimeoutMs: 2000 }).start();
      kills(first, 30, 2000);
      await first.close();
      assert.equal(first.counters.spooled, 30, 'closed with the hub down: all 30 spooled');
      await ctl.startHub();
      const aside = spoolDir('restart-copy');
      cpSync(dir, aside, { recursive: true });
      const second = await plugin('restart', dir).start();
      assert.equal(second.counters.spooled, 30, 'the spool survived the restart');
      kills(second, 10, 2000);
      assert.equal(await second.flush(), true);
      await second.close();
      assert.equal(second.counters.sent, 40);
      assert.equal(await ctl.kills(id), 40);
      assert.equal(readdirSync(dir).length, 0, 'the spool is empty');
      // a crash after sending and before deleting: the same 30 are sent again
      const third = await plugin('restart', aside).start();
      assert.equal(await third.flush(), true);
      await third.close();
      assert.equal(third.counters.duplicates, 30, 'the hub counted them as duplicates');
      assert.equal(await ctl.kills(id), 40, 'still stored once');
    } finally {
      await ctl.startHub();
    }
  },

  async revoked_token_stops() {
    const id = server('revoked').id;
    let revoked = false;
    const p = await plugin('revoked', spoolDir('revoked'), { onRevoked: () => (revoked = true) }).start();
    try {
      kills(p, 5, 3000);
      assert.equal(await p.flush(), true);
      assert.equal(p.counters.sent, 5);
      await ctl.removeServer(id);
      kills(p, 5, 3000);
      assert.equal(await p.flush(), false);
      assert.ok(revoked, 'onRevoked was called');
      assert.equal(p.state, 'revoked');
      assert.equal(p.counters.sent, 5, 'nothing more was sent');
      assert.equal(p.pending, 5, 'the 5 stay in the spool');
      assert.equal(await ctl.kills(id), 5);
    } finally {
      await p.close();
    }
  },
};

for (const scenario of scenarios) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  const started = Date.now();
  const line = (result: Record<string, unknown>) =>
    console.log(JSON.stringify({ scenario: scenario.name, ...result, ms: Date.now() - started }));
  const implementation = IMPLEMENTED[scenario.name];
  if (scenario.skip !== undefined || !implementation) {
    line({ status: 'skip', reason: scenario.skip ?? 'not implemented in TypeScript' });
    continue;
  }
  try {
    await implementation(fixture);
    line({ status: 'pass' });
  } catch (err) {
    line({ status: 'fail', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
}

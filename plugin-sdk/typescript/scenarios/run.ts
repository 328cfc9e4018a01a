// The TypeScript SDK's implementation of plugin-sdk/scenarios.json, against the hub of
// `npm run test:plugins`: one JSON line per scenario on stdout.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HubPlugin, type PluginOptions } from '@gaming-hub/plugin-sdk';
import { control, loadFixture, type Fixture } from './fixture.js';

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

/** Polls until `done()` holds; fails with what it last saw after `ms`. */
async function until(what: string, done: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const IMPLEMENTED: Record<string, (f: Fixture) => Promise<void>> = {
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

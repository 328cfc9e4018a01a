/**
 * `npm run bench:plugin`: the plugin SDK against its baselines, same `hub serve`, same run.
 *
 *   events   N kills from one plugin through @gaming-hub/plugin-sdk (queued, batched, sent, stored)
 *            vs the same kills posted as raw JSON batches to /api-platform/ingest/events, in
 *            alternating rounds; events per second to stored rows (target >= 10,000/s on SQLite),
 *            and the hub's CPU time per event (its threads' time on a CPU, /proc): on a busy
 *            machine the events/s say what share of the CPUs the hub got, the CPU time what an
 *            event costs it, and 1 s / that cost is what one CPU of its own would ingest.
 *   commands POST /v1/servers/:id/command round trips, one after another: to a plugin-channel
 *            server whose plugin long-polls through the SDK (target p99 <= 250 ms) vs to an RCON
 *            server (the fake Source RCON server of the tests).
 *
 *   npm run bench:plugin [-- --events N --rounds N --commands N]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HubPlugin } from '../plugin-sdk/typescript/src/index.js';
import type { CommandChannel } from '../src/db/types.js';
import { generateSecretKey } from '../src/engines/secret-box.js';
import { sealRconPassword } from '../src/modules/servers/commands/rcon-password.js';
import { tokenMinter } from '../scripts/oauth/mint-token.js';
import { fakeSourceServer } from '../test/helpers/fake-rcon/source.js';
import { cpuNs } from './lib/cpu.js';
import { addGameServer } from './lib/game-servers.js';
import { machineLoad } from './lib/machine.js';
import { median } from './lib/table.js';
import { startService } from './processes.js';
import { partnerApps, seededDb } from './setup.js';

const { values } = parseArgs({
  options: { events: { type: 'string' }, rounds: { type: 'string' }, commands: { type: 'string' } },
});
const EVENTS = Number(values.events ?? 30_000);
const ROUNDS = Number(values.rounds ?? 3);
const COMMANDS = Number(values.commands ?? 200);
const OWNER = 42;
const loadBefore = machineLoad();

const bench = await seededDb(200, 2000, 1);
const secret = generateSecretKey();
const register = (
  name: string,
  extra: { game?: string; rcon_port?: number; rcon_password?: string; command_channel?: CommandChannel } = {},
) => addGameServer(bench.db, { name, owner: OWNER, ...extra });
const killsOf = async (serverId: number) =>
  Number(
    (
      await bench.db.kysely
        .selectFrom('kills')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('server_id', '=', serverId)
        .executeTakeFirstOrThrow()
    ).n,
  );

// an OAuth access token of the owner with servers:command
const [created] = await partnerApps(bench.db, 1);
if (!created) throw new Error('no bench app');
const mint = await tokenMinter(bench.db.kysely, 'bench');
const accessToken = await mint(created.app.client_id, OWNER, 'servers:command');

const rcon = await fakeSourceServer({ password: 'bench-rcon-pw' });
// cs2: the Source RCON protocol of the fake server
const rconServer = await register('bench rcon', {
  game: 'cs2',
  rcon_port: rcon.port,
  rcon_password: sealRconPassword(secret.key, 'bench-rcon-pw'),
});

const service = await startService(bench.url, { HUB_SECRET_KEY: secret.text, INGEST_UDP_PORT: '0' });
const spools: string[] = [];
try {
  // --- events ---------------------------------------------------------------------------------
  // 100 players: the first round creates their profiles, later kills only count
  const player = (i: number) => ({
    name: `bench ${i % 100}`,
    steam_id: String(76561198000100000n + BigInt(i % 100)),
  });
  const kill = (i: number, at: number) => ({
    type: 'kill' as const,
    occurred_at: at,
    killer: player(i),
    victim: player(i + 1),
    weapon: 'rifle.ak',
    headshot: i % 3 === 0,
    distance: 20,
  });
  /** events per second, and the hub's CPU microseconds per event */
  interface Round {
    rate: number;
    cpuUs: number;
  }
  const raw = async (round: number): Promise<Round> => {
    const server = await register(`bench raw ${round}`);
    const at = Date.now() - 60_000;
    const bodies: string[] = [];
    for (let start = 0; start < EVENTS; start += 1000) {
      const events = [];
      for (let i = start; i < Math.min(EVENTS, start + 1000); i++)
        events.push({ ...kill(i, 0), occurred_at: new Date(at).toISOString(), client_id: `raw-${i}` });
      bodies.push(JSON.stringify({ events }));
    }
    const started = performance.now();
    const cpuBefore = cpuNs(service.pid);
    for (const body of bodies) {
      const res = await fetch(`${service.url}/api-platform/ingest/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body,
      });
      if (!res.ok) throw new Error(`raw ingest: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuUs = (cpuNs(service.pid) - cpuBefore) / 1000 / EVENTS;
    if ((await killsOf(server.id)) !== EVENTS) throw new Error('raw ingest: not every kill was stored');
    return { rate: EVENTS / seconds, cpuUs };
  };
  const sdk = async (round: number): Promise<Round> => {
    const server = await register(`bench sdk ${round}`);
    const spoolDir = mkdtempSync(join(tmpdir(), 'bench-plugin-spool-'));
    spools.push(spoolDir);
    const plugin = await new HubPlugin({ hubUrl: service.url, token: server.token, spoolDir }).start();
    const at = Date.now() - 60_000;
    const started = performance.now();
    const cpuBefore = cpuNs(service.pid);
    for (let i = 0; i < EVENTS; i++) plugin.send(kill(i, at));
    if (!(await plugin.flush())) throw new Error('the SDK could not deliver');
    const seconds = (performance.now() - started) / 1000;
    const cpuUs = (cpuNs(service.pid) - cpuBefore) / 1000 / EVENTS;
    await plugin.close();
    if ((await killsOf(server.id)) !== EVENTS || plugin.counters.sent !== EVENTS)
      throw new Error(`the SDK: ${JSON.stringify(plugin.counters)}`);
    return { rate: EVENTS / seconds, cpuUs };
  };
  await raw(-1); // warm up: JIT, connection, the players' profiles
  await sdk(-1);
  const rawRuns: Round[] = [];
  const sdkRuns: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rawRuns.push(await raw(round));
    sdkRuns.push(await sdk(round));
  }
  console.log(
    `events: ${EVENTS} kills per round, ${ROUNDS} alternating rounds, SQLite (median; every kill checked stored)`,
  );
  const figures = (runs: Round[]) => {
    const cpuUs = median(runs.map((r) => r.cpuUs));
    return `${median(runs.map((r) => r.rate)).toFixed(0)} events/s; hub CPU ${cpuUs.toFixed(1)} µs/event (${(1e6 / cpuUs).toFixed(0)}/s on a CPU of its own)`;
  };
  console.log(`  raw JSON ingest (batches of 1,000): ${figures(rawRuns)}`);
  console.log(`  plugin SDK (send -> flush):         ${figures(sdkRuns)} (target >= 10,000/s)`);

  // --- commands -------------------------------------------------------------------------------
  const roundTrips = async (serverId: number): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      const started = performance.now();
      const res = await fetch(`${service.url}/v1/servers/${serverId}/command`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ command: `say bench ${i}` }),
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`command: ${res.status} ${body}`);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b);
  };
  const pct = (xs: number[], p: number) =>
    (xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0).toFixed(1);
  const rconTimes = await roundTrips(rconServer.id);
  console.log(`commands: ${COMMANDS} round trips one after another through POST /v1/servers/:id/command`);
  console.log(`  RCON (fake Source server):   p50 ${pct(rconTimes, 0.5)} ms  p99 ${pct(rconTimes, 0.99)} ms`);
  const pluginServer = await register('bench plugin commands', { command_channel: 'plugin' });
  const spoolDir = mkdtempSync(join(tmpdir(), 'bench-plugin-spool-'));
  spools.push(spoolDir);
  const plugin = await new HubPlugin({
    hubUrl: service.url,
    token: pluginServer.token,
    spoolDir,
    commands: { say: ({ args }) => `said: ${args}` },
  }).start();
  try {
    const pluginTimes = await roundTrips(pluginServer.id);
    console.log(
      `  plugin (long-polling SDK):   p50 ${pct(pluginTimes, 0.5)} ms  p99 ${pct(pluginTimes, 0.99)} ms (target p99 <= 250 ms)`,
    );
  } finally {
    await plugin.close();
  }
  console.log(`before the run: ${loadBefore}; after: ${machineLoad()}`);
} finally {
  await service.stop();
  await rcon.close();
  for (const dir of spools) rmSync(dir, { recursive: true, force: true });
  await bench.drop();
}

/**
 * `npm run bench:bot`: the bot framework (issue 27) against a raw SSE reader, same `hub serve`
 * (SQLite), same run. The readers run in a process of their own (bench/bot-reader.ts), as a bot
 * does.
 *
 *   catch-up  --events kill.provisional events already in the outbox, read from the oldest
 *             (Last-Event-ID evt_0…0) by: a raw reader (node:http, frames cut at blank lines,
 *             JSON.parse: the baseline), the TypeScript client's stream (`for await`), and a bot
 *             (createBot, a no-op listener, its default file store committing every event; and the
 *             same bot with a MemoryStore, which prices the file store's write per event), in
 *             --rounds alternating rounds after a warm-up. Events per second (median), CPU per
 *             event, stream connections opened (more than one: the hub closed one, the reader
 *             resumed). Target: the bot >= 5,000 events/s.
 *   chat      a `say "!ping n"` line posted to the log ingest as a game server posts it, until the
 *             reply `say "pong n"` reaches the fake CS2 server's remote console (the hub's
 *             POST /v1/servers/{id}/command): --samples one after another, p50 / p99. The baseline
 *             reads the stream raw and posts the command itself. Target: the bot's p99 <= 500 ms.
 *   kill      a kill line posted to the log ingest, until its kill.provisional reaches the reader:
 *             --samples, p50 / p99. Target: the bot's p99 <= 1 s.
 *   burst     --burst kill lines in one ingest post, until the last one's kill.provisional reaches
 *             the reader: the live rate end to end. Connections: the stream connections the reader
 *             opened (more than one: the hub cut it as a slow reader, and it resumed).
 *
 *   npm run bench:bot [-- --events N --rounds N --samples N --burst N]
 */
import { commitEvents } from '../test/helpers/stream-app.js';
import { fakeSourceServer } from '../test/helpers/fake-rcon/source.js';
import { stamp } from '../test/helpers/ingest.js';
import { generateSecretKey } from '../src/engines/secret-box.js';
import { formatEventId } from '../src/modules/events/event-id.js';
import { eventsRepo } from '../src/modules/events/repo.js';
import { sealRconPassword } from '../src/modules/servers/commands/rcon-password.js';
import { tokenMinter } from '../scripts/oauth/mint-token.js';
import { countArgs } from './args.js';
import type { CatchUp, Question, Reader } from './bot-reader.js';
import { addGameServer } from './lib/game-servers.js';
import { machineLoad } from './lib/machine.js';
import { fmt, median, printTable } from './lib/table.js';
import { startScript, startService } from './processes.js';
import { partnerApps, seededDb } from './setup.js';

const {
  events: EVENTS,
  rounds: ROUNDS,
  samples: SAMPLES,
  burst: BURST,
} = countArgs({ events: 20_000, rounds: 3, samples: 100, burst: 2_000 });
const OWNER = 1;
const PASSWORD = 'bench-rcon-pw';
const SCOPES = 'chat:read servers:command stats:read';
const ace = '"Ace<2><[U:1:905001]><CT>"';
const bo = '"Bo<3><[U:1:905002]><TERRORIST>"';
/** a reader that has not seen an event this long after it was posted has lost it */
const LOST_MS = 30_000;

console.log(`before: ${machineLoad()}`);
const bench = await seededDb(10, 0, 1);
const secret = generateSecretKey();

/** `pong n` said on the game server: when, by n; and who waits for which */
const pongs = new Map<number, number>();
const pongWaiters = new Map<number, (at: number) => void>();
const rcon = await fakeSourceServer({
  password: PASSWORD,
  handler: (command) => {
    const n = /^say "pong (\d+)"$/.exec(command)?.[1];
    if (n !== undefined) {
      const at = Date.now();
      pongs.set(Number(n), at);
      pongWaiters.get(Number(n))?.(at);
    }
    return '';
  },
});
const server = await addGameServer(bench.db, {
  name: 'bench cs2',
  owner: OWNER,
  game: 'cs2',
  rcon_port: rcon.port,
  rcon_password: sealRconPassword(secret.key, PASSWORD),
});
const [app] = await partnerApps(bench.db, 1);
if (!app) throw new Error('no bench app');
const token = await (await tokenMinter(bench.db.kysely, 'bench'))(app.app.client_id, OWNER, SCOPES);

// the backlog the catch-up reads: kill.provisional events as the ingest writes them
const kill = (i: number) => ({
  type: 'kill.provisional',
  scope: 'stats:read' as const,
  data: {
    server_id: server.id,
    game: 'cs2',
    killer_user_id: null,
    killer_steam_id: '76561198865266729',
    killer_name: 'Ace',
    victim_user_id: null,
    victim_steam_id: '76561198865266730',
    victim_name: 'Bo',
    weapon: 'ak47',
    headshot: i % 3 === 0,
    round: 1 + Math.floor(i / 50),
    occurred_at: new Date(Date.now() - 3_600_000 + i).toISOString(),
  },
});
for (let i = 0; i < EVENTS; i += 1000)
  await commitEvents(
    bench,
    Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => kill(i + j)),
  );

const service = await startService(bench.url, { HUB_SECRET_KEY: secret.text, INGEST_UDP_PORT: '0' });
const reader = await startScript('./bot-reader.ts', [], {
  env: { BENCH_HUB_URL: service.url, BENCH_TOKEN: token, BENCH_SERVER_ID: String(server.id) },
});
const ask = (question: Question) => reader.ask(JSON.stringify(question));
const within = <T>(what: string, promise: Promise<T>): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing after ${LOST_MS} ms`)), LOST_MS).unref(),
    ),
  ]);
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? NaN;

const ingest = async (lines: string[]) => {
  const res = await fetch(`${service.url}/api-platform/ingest/logs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' },
    body: `${lines.join('\n')}\n`,
  });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
};
const lastEventId = async () => formatEventId(await eventsRepo(bench.db.kysely).latest());

const READERS: { reader: Reader; label: string }[] = [
  { reader: 'raw', label: 'raw SSE reader (node:http, baseline)' },
  { reader: 'client', label: 'TypeScript client stream (for await)' },
  { reader: 'bot', label: 'bot (createBot, no-op listener, file store)' },
  { reader: 'bot-memory', label: 'the same bot with a MemoryStore' },
];

try {
  // --- catch-up ------------------------------------------------------------------------------
  const runs = new Map<Reader, CatchUp[]>(READERS.map((r) => [r.reader, []]));
  for (let round = -1; round < ROUNDS; round++)
    for (const { reader: r } of READERS) {
      const run = (await ask({ kind: 'catch-up', reader: r, count: EVENTS })) as CatchUp;
      // round -1 warms up (JIT, connection, the hub's page cache)
      if (round >= 0) runs.get(r)?.push(run);
    }
  const rate = (r: Reader) => median((runs.get(r) ?? []).map((run) => EVENTS / (run.ms / 1000)));
  console.log(
    `\ncatch-up: ${fmt(EVENTS)} kill.provisional events from Last-Event-ID evt_0…0, ${ROUNDS} alternating rounds (median)`,
  );
  printTable(
    ['reader', 'events/s', 'CPU µs/event', 'connections', 'vs raw'],
    READERS.map(({ reader: r, label }) => {
      const done = runs.get(r) ?? [];
      return [
        label,
        fmt(rate(r)),
        fmt(median(done.map((run) => (run.cpuMs * 1000) / EVENTS))),
        done.map((run) => run.connections).join(' '),
        `x${fmt(rate(r) / rate('raw'), 2)}`,
      ];
    }),
  );
  console.log(`target: bot >= 5,000 events/s`);

  // --- live: chat -> reply, kill -> event, a burst -----------------------------------------------
  const LIVE = READERS.filter((r) => r.reader === 'raw' || r.reader === 'bot');
  await ingest([
    `${stamp(Date.now() - 5000)}"Ace<2><[U:1:905001]><>" connected, address "203.0.113.7:27005"`,
    `${stamp(Date.now() - 5000)}"Bo<3><[U:1:905002]><>" connected, address "203.0.113.8:27005"`,
    `${stamp(Date.now() - 5000)}"Ace<2><[U:1:905001]>" switched from team <Unassigned> to <CT>`,
    `${stamp(Date.now() - 5000)}"Bo<3><[U:1:905002]>" switched from team <Unassigned> to <TERRORIST>`,
    `${stamp(Date.now() - 5000)}World triggered "Match_Start" on "de_dust2"`,
    `${stamp(Date.now() - 5000)}World triggered "Round_Start"`,
  ]);
  let n = 0;
  const killLine = (weapon: string) =>
    `${stamp(Date.now())}${ace} [0 0 0] killed ${bo} [300 0 0] with "${weapon}"`;
  const pingOnce = async () => {
    const i = ++n;
    const replied = new Promise<number>((resolve) => pongWaiters.set(i, resolve));
    const sent = Date.now();
    await ingest([`${stamp(sent)}${ace} say "!ping ${i}"`]);
    return (await within(`the reply to !ping ${i}`, replied)) - sent;
  };
  const killOnce = async () => {
    const weapon = `bench${++n}`;
    const sent = Date.now();
    await ingest([killLine(weapon)]);
    return ((await within(`kill ${weapon}`, ask({ kind: 'arrival', weapon }))) as number) - sent;
  };
  const live = new Map<Reader, { chat: number[]; kill: number[]; burstMs: number; connections: number }>();
  for (const { reader: r } of LIVE) {
    await ask({ kind: 'live', reader: r, after: await lastEventId() });
    // warm-up: the stream connection, the console connection, the JIT
    for (let i = 0; i < 3; i++) {
      await pingOnce();
      await killOnce();
    }
    const chat: number[] = [];
    const kills: number[] = [];
    // the chat lines, then the kills: a kill does not queue behind a reply still under way
    for (let i = 0; i < SAMPLES; i++) chat.push(await pingOnce());
    for (let i = 0; i < SAMPLES; i++) kills.push(await killOnce());
    const first = n + 1;
    n += BURST;
    const sent = Date.now();
    await ingest(Array.from({ length: BURST }, (_, i) => killLine(`bench${first + i}`)));
    const last = (await within('the burst', ask({ kind: 'arrival', weapon: `bench${n}` }))) as number;
    const connections = (await ask({ kind: 'stop' })) as number;
    live.set(r, { chat, kill: kills, burstMs: last - sent, connections });
  }
  const ms = (v: number) => `${fmt(v)} ms`;
  console.log(
    `\nlive: ${SAMPLES} chat lines and ${SAMPLES} kill lines posted one after another, then ${fmt(BURST)} kills in one post`,
  );
  printTable(
    ['reader', 'chat->reply p50', 'p99', 'kill->event p50', 'p99', 'burst events/s', 'connections'],
    LIVE.map(({ reader: r, label }) => {
      const m = live.get(r);
      if (!m) return [label];
      return [
        label,
        ms(percentile(m.chat, 0.5)),
        ms(percentile(m.chat, 0.99)),
        ms(percentile(m.kill, 0.5)),
        ms(percentile(m.kill, 0.99)),
        fmt(BURST / (m.burstMs / 1000)),
        String(m.connections),
      ];
    }),
  );
  const raw = live.get('raw');
  const bot = live.get('bot');
  if (raw && bot)
    console.log(
      `bot / raw: chat->reply p99 x${fmt(percentile(bot.chat, 0.99) / percentile(raw.chat, 0.99), 2)}, kill->event p99 x${fmt(percentile(bot.kill, 0.99) / percentile(raw.kill, 0.99), 2)}`,
    );
  console.log(`targets: chat->reply p99 <= 500 ms, kill->event p99 <= 1,000 ms`);
  console.log(`after: ${machineLoad()}`);
} finally {
  await reader.stop();
  await service.stop();
  await rcon.close();
  await bench.drop();
}

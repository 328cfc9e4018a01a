/**
 * The reader process of `npm run bench:bot` (bench/bot.ts forks it): one process reading the hub's
 * event stream, as a bot runs, so its parsing and handling share no event loop with the hub or the
 * driver. It answers the driver's questions (IPC, one at a time):
 *
 *   {kind: 'catch-up', reader, count}  reads `count` events from the oldest, returns the time taken,
 *                                       its CPU time and the stream connections it opened
 *   {kind: 'live', reader, after}      follows the stream after `after`: answers `!ping n` with
 *                                       `pong n` in game, notes when each kill.provisional arrives
 *   {kind: 'arrival', weapon}          when the kill with this weapon arrived (waits for it)
 *   {kind: 'stop'}                     stops following; returns the stream connections it opened
 *
 * Readers: `bot` (createBot with a no-op listener, its default file store), `bot-memory` (the same
 * bot with a MemoryStore: what the file store's write per event costs), `client` (the
 * TypeScript client's `for await` over the stream, no bot), `raw` (node:http and a line parser,
 * nothing else: the baseline).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubClient, HubOAuth } from '../clients/typescript/src/index.js';
import { arg, createBot, jsonLogger, MemoryStore, type Bot, type BotLogger } from '../bot/src/index.js';

export type Reader = 'raw' | 'client' | 'bot' | 'bot-memory';
export type Question =
  | { kind: 'catch-up'; reader: Reader; count: number }
  | { kind: 'live'; reader: Reader; after: string }
  | { kind: 'arrival'; weapon: string }
  | { kind: 'stop' };
export interface CatchUp {
  ms: number;
  cpuMs: number;
  connections: number;
}

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bench/bot-reader.ts: set ${name}`);
  return value;
};
const HUB_URL = env('BENCH_HUB_URL');
const TOKEN = env('BENCH_TOKEN');
const SERVER_ID = Number(env('BENCH_SERVER_ID'));
const OLDEST = 'evt_0000000000000000';
const KILLS = 'kill.provisional';
const scratch = mkdtempSync(join(tmpdir(), 'bench-bot-'));
/** warnings and errors only: a reconnect is worth seeing, each event is not */
const log: BotLogger = { ...jsonLogger('bench'), info: () => undefined };

/** Stream connections opened, counted by the clients' fetch: more than one means the hub closed one. */
let connections = 0;
const countingFetch = (req: Request, init?: RequestInit) => {
  if (new URL(req.url).pathname === '/v1/events/stream') connections++;
  return fetch(req, init);
};
const hubClient = () =>
  new HubClient({
    baseUrl: HUB_URL,
    // only the access token: nothing to refresh within a run
    oauth: {
      tokens: { accessToken: TOKEN },
      client: new HubOAuth({ baseUrl: HUB_URL, clientId: 'bench', redirectUri: 'http://127.0.0.1/cb' }),
    },
    fetch: countingFetch,
  });

interface RawEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The baseline: GET the stream with node:http, cut the body into frames at blank lines, JSON.parse
 * each frame's data; reconnect with Last-Event-ID when the hub ends the response. What any
 * consumer must do, and no more.
 */
function rawStream(after: string, types: string, onEvent: (event: RawEvent) => void, signal: AbortSignal) {
  let last = after;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      connections++;
      const req = request(
        `${HUB_URL}/v1/events/stream?types=${types}`,
        {
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'last-event-id': last },
          signal,
        },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`the stream answered ${res.statusCode}`));
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) !== -1) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              if (!frame.startsWith('id: ')) continue;
              const data = frame.indexOf('\ndata: ');
              const event = JSON.parse(frame.slice(data + 7)) as RawEvent;
              last = event.id;
              onEvent(event);
            }
          });
          res.on('end', resolve);
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  return (async () => {
    while (!signal.aborted)
      await open().catch((error: unknown) => {
        if (!signal.aborted) throw error;
      });
  })();
}

/**
 * A bot whose store starts after `after`: a file store (a journal of one commit, as an earlier run
 * leaves it), or a MemoryStore.
 */
function botAfter(after: string, extend: (bot: Bot) => void, memory = false): Bot {
  const file = join(scratch, `${randomUUID()}.cursor`);
  if (!memory) writeFileSync(file, `C ${after}\n`);
  const store = memory ? new MemoryStore(after) : file;
  const bot = createBot({ name: 'bench', hub: hubClient(), store, handleSignals: false, logger: log });
  extend(bot);
  return bot;
}

async function catchUp(reader: Reader, count: number): Promise<CatchUp> {
  connections = 0;
  const abort = new AbortController();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let seen = 0;
  if (reader === 'raw') {
    await new Promise<void>((resolve, reject) => {
      rawStream(
        OLDEST,
        KILLS,
        () => {
          if (++seen < count) return;
          abort.abort();
          resolve();
        },
        abort.signal,
      ).catch(reject);
    });
  } else if (reader === 'client') {
    for await (const _ of hubClient().events({ after: OLDEST, types: [KILLS], signal: abort.signal }))
      if (++seen === count) break;
  } else {
    const bot = botAfter(
      OLDEST,
      (b) =>
        b.on(KILLS, () => {
          if (++seen === count) void b.stop();
        }),
      reader === 'bot-memory',
    );
    await bot.start();
    if (bot.handled < count) throw new Error(`the bot stopped after ${bot.handled} events`);
  }
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  abort.abort();
  return { ms, cpuMs: (used.user + used.system) / 1000, connections };
}

/** When each kill arrived (by its weapon, unique per kill), and who waits for one. */
const arrivals = new Map<string, number>();
const waiting = new Map<string, (at: number) => void>();
const arrived = (weapon: string) => {
  const at = Date.now();
  arrivals.set(weapon, at);
  waiting.get(weapon)?.(at);
};
const PING = /^!ping (\d+)$/;
let following: (() => Promise<void>) | undefined;

/** Follows the stream after `after`: `!ping n` answered `pong n` in game, kills noted. */
function live(reader: Reader, after: string): void {
  connections = 0;
  if (reader !== 'raw') {
    const bot = botAfter(after, (b) =>
      b
        .on(KILLS, (event) => arrived(event.data.weapon))
        .command({ name: 'ping', description: 'pong', args: { n: arg.integer() } }, (ctx) =>
          ctx.reply(`pong ${ctx.args.n}`),
        ),
    );
    const running = bot.start();
    following = async () => (await bot.stop(), await running);
    return;
  }
  // the baseline answers as directly as it can: its own POST per ping, no framework
  const abort = new AbortController();
  const reply = async (n: string) => {
    const res = await fetch(`${HUB_URL}/v1/servers/${SERVER_ID}/command`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ command: `say "pong ${n}"` }),
    });
    if (!res.ok) log.error('the raw reply failed', { status: res.status, body: await res.text() });
  };
  const running = rawStream(
    after,
    `${KILLS},chat.message`,
    (event) => {
      if (event.type === KILLS) return arrived(event.data.weapon as string);
      const n = PING.exec(event.data.text as string)?.[1];
      if (n) void reply(n);
    },
    abort.signal,
  );
  following = async () => (abort.abort(), await running);
}

async function answer(question: Question): Promise<unknown> {
  switch (question.kind) {
    case 'catch-up':
      return catchUp(question.reader, question.count);
    case 'live':
      live(question.reader, question.after);
      return 'following';
    case 'arrival': {
      const at = arrivals.get(question.weapon);
      if (at !== undefined) return at;
      return new Promise((resolve) => waiting.set(question.weapon, resolve));
    }
    case 'stop':
      await following?.();
      following = undefined;
      arrivals.clear();
      waiting.clear();
      return connections;
  }
}

process.on('message', (message) => {
  answer(JSON.parse(message as string) as Question).then(
    (result) => process.send?.(result),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
process.once('SIGTERM', () => {
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
});
process.send?.('ready');

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import {
  addServer,
  buildIfStale,
  hub,
  serve,
  startWorker,
  stop,
  type RegisteredServer,
  type Served,
  type Started,
} from './helpers/cli.js';
import { freeUdpPort, sendDatagrams, udpLog } from './helpers/udp.js';
import { stamp } from './helpers/ingest.js';

/**
 * `hub serve` (WORKER_IN_SERVE=false) and `hub worker` on ONE SQLite file, both ingesting at once:
 * CS2 log batches over HTTP into serve, CS 1.6 log lines over UDP into the worker. Every line is a
 * kill of its own victim; every kill must be stored exactly once, none lost to the other process's
 * write lock, none doubled; and each process's writes land between the other's (the file really had
 * two writers at once). Then a SIGTERM right after a burst of datagrams, none of it written yet: the
 * worker writes what it buffered (and what was still waiting in its socket) before it exits.
 *
 * Both processes log at `error` (not the tests' usual `silent`): a flush that failed on the other
 * process's lock and was retried is logged, and the output is checked for it.
 */
const HTTP_BATCHES = 40;
const HTTP_PER_BATCH = 20;
const HTTP_SENDERS = 4;
const UDP_LINES = 800;
const ROUND = 50;
/** the processes log errors, so that a failed (and retried) write shows in their output */
const LOG_ERRORS = { LOG_LEVEL: 'error' };

const cs2Kill = (at: number, victim: number) =>
  `${stamp(at)}"P${victim % 7}<${victim % 7}><[U:1:${1 + (victim % 7)}]><CT>" [0 0 0] killed "V${victim}<9><[U:1:${100_000 + victim}]><TERRORIST>" [0 0 0] with "ak47"`;
const cs16Kill = (at: number, victim: number) =>
  `${stamp(at)}"Old<2><STEAM_0:1:${1 + (victim % 5)}><CT>" killed "V${victim}<3><STEAM_0:0:${200_000 + victim}><TERRORIST>" with "ak47"`;
const roundStart = (at: number) => `${stamp(at)}World triggered "Round_Start"`;

/**
 * Lines of `n` kills, one second apart from `at`, a round start before every `ROUND` of them and
 * after the last. Every line is a line of its own: a line repeated (same text, same second) is
 * what a resend looks like (line-dedupe.ts), so no two rounds start in the same second.
 */
function killLog(n: number, at: number, kill: (at: number, victim: number) => string, first = 0): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = at + i * 1000;
    if (i % ROUND === 0) lines.push(roundStart(t));
    lines.push(kill(t, first + i));
  }
  lines.push(roundStart(at + (n - 1) * 1000 + 500));
  return lines;
}

describe('serve and worker ingesting into one SQLite file at once (e2e)', () => {
  let dir: string;
  let url: string;
  let file: string;
  let cs2: RegisteredServer;
  let cs16: RegisteredServer;
  let served: Served;

  /** `query` on the file opened read-only (another connection than either process's) */
  const read = <T>(query: (db: SQLite.Database) => T): T => {
    const db = new SQLite(file, { readonly: true });
    try {
      return query(db);
    } finally {
      db.close();
    }
  };
  const count = (sql: string, ...params: unknown[]): number =>
    read(
      (db) =>
        (db
          .prepare(sql)
          .pluck()
          .get(...params) as number | undefined) ?? 0,
    );
  const killsOf = (server: RegisteredServer) =>
    count('select count(*) from kills where server_id = ?', server.id);
  const victimsOf = (server: RegisteredServer) =>
    count('select count(distinct victim_steam_id) from kills where server_id = ?', server.id);
  /** How often the writer changes along the kills in id order: 1 if one wrote all its kills first. */
  const writerChanges = (): number => {
    const servers = read(
      (db) => db.prepare('select server_id from kills order by id').pluck().all() as number[],
    );
    return servers.filter((s, i) => i > 0 && s !== servers[i - 1]).length;
  };
  async function settle(server: RegisteredServer, expected: number, ms = 20_000): Promise<number> {
    const deadline = Date.now() + ms;
    let n = killsOf(server);
    while (n < expected && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      n = killsOf(server);
    }
    return n;
  }

  /** `hub worker` receiving UDP logs on a free port; stopped after the test whatever happens. */
  const workers: Started[] = [];
  async function udpWorker(): Promise<{ port: number; worker: Started }> {
    const port = await freeUdpPort();
    const worker = await startWorker(url, {
      INGEST_UDP_PORT: String(port),
      INGEST_UDP_HOST: '127.0.0.1',
      ...LOG_ERRORS,
    });
    workers.push(worker);
    return { port, worker };
  }
  afterEach(async () => {
    for (const w of workers.splice(0))
      if (w.child.exitCode === null && w.child.signalCode === null) await stop(w);
  });

  before(async () => {
    buildIfStale();
    dir = mkdtempSync(join(tmpdir(), 'hub-two-processes-'));
    file = join(dir, 'hub.sqlite');
    url = `sqlite:${file}`;
    assert.equal(hub(url, ['migrate']).status, 0);
    cs2 = addServer(url, 'cs2', 27015);
    cs16 = addServer(url, 'cs16', 27016);
    served = await serve(url, [], { WORKER_IN_SERVE: 'false', ...LOG_ERRORS });
  });
  after(async () => {
    await stop(served);
    rmSync(dir, { recursive: true, force: true });
  });

  it('HTTP batches into serve and UDP lines into the worker, at once: every kill stored exactly once', async () => {
    const { port, worker } = await udpWorker();
    const at = Math.floor(Date.now() / 1000) * 1000 - 3_600_000; // whole seconds: each round start in a second of its own
    const batches = Array.from({ length: HTTP_BATCHES }, (_, b) =>
      killLog(HTTP_PER_BATCH, at + b * HTTP_PER_BATCH * 1000, cs2Kill, b * HTTP_PER_BATCH),
    );
    const statuses: number[] = [];
    const post = async (b: number) => {
      const res = await fetch(`${served.url}/api-platform/ingest/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cs2.token}`, 'content-type': 'text/plain' },
        body: (batches[b] ?? []).join('\n') + '\n',
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    };
    // Every sender keeps its last batch until the worker has written: serve then writes both before
    // and after the worker's first write, whatever the speed of either side.
    const postAll = async (sender: number) => {
      const mine = Array.from({ length: HTTP_BATCHES / HTTP_SENDERS }, (_, i) => sender + i * HTTP_SENDERS);
      const last = mine.pop() ?? 0;
      for (const b of mine) await post(b);
      await settle(cs16, 1); // the worker's first UDP kills are in the file (it flushes every 250 ms)
      await post(last);
    };
    const udpLines = killLog(UDP_LINES, at, cs16Kill);
    await Promise.all([
      ...Array.from({ length: HTTP_SENDERS }, (_, s) => postAll(s)),
      sendDatagrams(
        port,
        udpLines.map((l) => udpLog(cs16.token, l)),
        { perTick: 20 },
      ),
    ]);
    assert.deepEqual(
      statuses.filter((s) => s !== 200),
      [],
      'every HTTP batch is accepted',
    );
    assert.equal(await settle(cs16, UDP_LINES), UDP_LINES, 'UDP kills stored');
    assert.equal(await stop(worker), 0, worker.output());
    assert.equal(killsOf(cs2), HTTP_BATCHES * HTTP_PER_BATCH, 'HTTP kills stored');
    assert.equal(victimsOf(cs2), HTTP_BATCHES * HTTP_PER_BATCH, 'no HTTP kill doubled');
    assert.equal(killsOf(cs16), UDP_LINES, 'no UDP kill doubled');
    assert.equal(victimsOf(cs16), UDP_LINES);
    assert.equal(
      count('select count(*) from kills'),
      HTTP_BATCHES * HTTP_PER_BATCH + UDP_LINES,
      'no other kill',
    );
    // serve wrote before and after the worker's first write (at least two changes of writer)
    assert.ok(
      writerChanges() >= 2,
      `the two processes wrote one after the other (${writerChanges()} change)`,
    );
    assert.doesNotMatch(worker.output(), /failed|locked|error/i);
    assert.doesNotMatch(served.output(), /failed|locked|error/i);
  });

  it('SIGTERM right after a burst: every datagram sent before it is stored', async () => {
    const { port, worker } = await udpWorker();
    const before = killsOf(cs16);
    const victimsBefore = victimsOf(cs16);
    const lines = killLog(300, Date.now() - 7_200_000, cs16Kill, 10_000);
    await sendDatagrams(
      port,
      lines.map((l) => udpLog(cs16.token, l)),
      { perTick: 300 },
    );
    // the worker flushes 250 ms after the first line: nothing of the burst is written yet, so what is
    // stored below was written on the way out
    assert.equal(killsOf(cs16) - before, 0, 'the burst is still buffered when the signal is sent');
    assert.equal(await stop(worker), 0, worker.output());
    assert.equal(killsOf(cs16) - before, 300, worker.output());
    assert.equal(victimsOf(cs16) - victimsBefore, 300, 'none doubled');
    assert.doesNotMatch(worker.output(), /failed|locked|error/i);
  });
});

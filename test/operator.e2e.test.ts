import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { connect as tcpConnect, createServer, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { connect } from '../src/db/connect.js';
import { addServer, cliScratch, hub, serve, startWorker, stop, type Run } from './helpers/cli.js';
import { inRound, stamp } from './helpers/ingest.js';
import { freeUdpPort, sendDatagrams, udpLog } from './helpers/udp.js';

/**
 * The operator's side of the `hub` binary, as real processes: start-up failures are one clear line
 * and exit code 1 (no stack trace), and SIGTERM drains requests in flight and writes what is
 * buffered (usage counts, UDP log lines) before the process exits 0.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * oidc-provider 9 prints this on any Node.js before 22 when it is loaded (by `serve`, before it
 * listens). It is the platform question (docs/operating.md, Requirements), not a start-up failure's line.
 */
const OIDC_RUNTIME_WARNING = /^oidc-provider WARNING: Unsupported runtime\..*\n/;

function assertOneLine(run: Run, message: RegExp): void {
  assert.equal(run.status, 1, `exit code of: ${run.stderr}${run.stdout}`);
  const stderr = run.stderr.replace(OIDC_RUNTIME_WARNING, '');
  assert.match(stderr, message);
  assert.equal(stderr.trim().split('\n').length, 1, `one line:\n${run.stderr}`);
  assert.doesNotMatch(stderr, /\n\s+at |Error:/, 'no stack trace');
}

const listenTcp = () =>
  new Promise<Server>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
const tcpPort = (server: Server) => (server.address() as { port: number }).port;
const bindUdp = () =>
  new Promise<Socket>((resolve) => {
    const socket = createSocket('udp4');
    socket.bind(0, '127.0.0.1', () => resolve(socket));
  });

/**
 * A CS 1.6 round of kills (one per victim) over UDP, settled by the next round's start (kills count
 * once their round is over); each line in a second of its own: over UDP the same line twice is one
 * datagram received twice.
 */
function cs16Round(token: string, victims: number[]): Buffer[] {
  const at = Date.now() - 5000;
  return [
    `${stamp(at)}World triggered "Round_Start"`,
    ...victims.map(
      (victim) =>
        `${stamp(at + 1000)}"Old<2><STEAM_0:1:5><CT>" killed "V<3><STEAM_0:0:${victim}><TERRORIST>" with "ak47"`,
    ),
    `${stamp(at + 2000)}World triggered "Round_Start"`,
  ].map((line) => udpLog(token, line));
}

describe('hub start-up failures and graceful shutdown', () => {
  const { tempDb } = cliScratch('hub-ops-');

  it('bad settings: one line naming every bad variable and what it accepts, never a secret', () => {
    const run = hub(tempDb(), ['serve'], {
      PORT: 'eighty',
      RATE_LIMIT_STORE_FAILURE: 'maybe',
      REDIS_URL: 'http://user:hunter2@redis',
    });
    assertOneLine(
      run,
      /^hub: invalid configuration: PORT must be an integer from 0 to 65535 \(got "eighty"\)/,
    );
    assert.match(run.stderr, /RATE_LIMIT_STORE_FAILURE must be one of: open, closed \(got "maybe"\)/);
    assert.match(run.stderr, /REDIS_URL must be like redis:\/\/host:port.*\(got "http:\/\/\*\*\*@redis"\)/);
    assert.doesNotMatch(run.stderr, /hunter2/);
  });

  it("a TCP port in use: serve's HTTP port, the worker's metrics port", async () => {
    const taken = await listenTcp();
    try {
      const port = tcpPort(taken);
      assertOneLine(
        hub(tempDb(), ['serve'], { PORT: String(port) }),
        new RegExp(`^hub: HTTP port 127\\.0\\.0\\.1:${port} is already in use: .*\\(PORT\\)`),
      );
      assertOneLine(
        hub(tempDb(), ['worker'], { WORKER_METRICS_PORT: String(port) }),
        new RegExp(
          `^hub: worker metrics port 127\\.0\\.0\\.1:${port} is already in use: .*\\(WORKER_METRICS_PORT; leave it unset for none\\)`,
        ),
      );
    } finally {
      taken.close();
    }
  });

  it("the worker's UDP port in use (the worker fails; serve starts without its receiver)", async () => {
    const taken = await bindUdp();
    try {
      const port = taken.address().port;
      const db = tempDb();
      const udp = { INGEST_UDP_PORT: String(port), INGEST_UDP_HOST: '127.0.0.1' };
      assertOneLine(
        hub(db, ['worker'], udp),
        new RegExp(
          `^hub: UDP log receiver port 127\\.0\\.0\\.1:${port} is already in use: .*INGEST_UDP_PORT`,
        ),
      );
      const served = await serve(db, [], { ...udp, LOG_LEVEL: 'warn' });
      assert.equal((await fetch(`${served.url}/health`)).status, 200);
      assert.equal(await stop(served), 0);
      // read once it has exited: the log is written asynchronously, and may come after the banner
      assert.match(served.output(), /UDP log receiver port .* is already in use.*the API runs without it/);
      assert.doesNotMatch(served.output(), /\n\s+at /, 'no stack trace');
      assert.doesNotMatch(
        served.output(),
        /UDP log ingest failed/,
        'said once, explained, not also as an error',
      );
    } finally {
      taken.close();
    }
  });

  it('PostgreSQL unreachable, missing or refusing the user: one line, without the password', () => {
    assertOneLine(
      hub('postgres://hub:s3cret@127.0.0.1:1/hub', ['serve']),
      /^hub: cannot reach PostgreSQL at 127\.0\.0\.1:1 \(connection refused\)/,
    );
    const base = process.env.TEST_DATABASE_URL;
    if (!base) return;
    const missing = new URL(base);
    missing.pathname = `/hub_missing_${process.pid}`;
    const run = hub(missing.toString(), ['serve']);
    assertOneLine(
      run,
      new RegExp(
        `^hub: PostgreSQL database "hub_missing_${process.pid}" does not exist on ${missing.hostname}:${missing.port || 5432}: create it \\(createdb -h ${missing.hostname} `,
      ),
    );
    const stranger = new URL(base);
    stranger.username = 'no_such_role_hub';
    stranger.password = 's3cret';
    const refused = hub(stranger.toString(), ['migrate']);
    assertOneLine(refused, /^hub: PostgreSQL at .* refused user "no_such_role_hub"/);
    assert.doesNotMatch(refused.stderr, /s3cret/);
  });

  /** A database with a partner key and two registered game servers (cs2 over HTTP, cs16 over UDP). */
  function preparedDatabase() {
    const db = tempDb();
    const key = JSON.parse(hub(db, ['keys', 'create', '--tier', 'partner', '--json']).stdout) as {
      id: number;
      key: string;
    };
    return { db, key, cs2: addServer(db, 'cs2', 27015), cs16: addServer(db, 'cs16', 27016) };
  }

  async function killsBy(db: string): Promise<Map<number, number>> {
    const opened = connect(db);
    try {
      const rows = await opened.kysely.selectFrom('kills').select(['server_id']).execute();
      const counts = new Map<number, number>();
      for (const { server_id } of rows) counts.set(server_id, (counts.get(server_id) ?? 0) + 1);
      return counts;
    } finally {
      await opened.close();
    }
  }

  it('SIGTERM writes the buffered usage counts and UDP log lines, then exits 0', async () => {
    const { db, key, cs16 } = preparedDatabase();
    const udpPort = await freeUdpPort();
    const served = await serve(db, [], { INGEST_UDP_PORT: String(udpPort), INGEST_UDP_HOST: '127.0.0.1' });

    // usage counts wait in memory for the next flush (every 5 s)
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${served.url}/api-platform/v1/achievements`, {
        headers: { 'x-api-key': key.key },
      });
      assert.equal(res.status, 200);
    }
    // UDP log lines wait up to 250 ms to be written in one batch
    await sendDatagrams(udpPort, cs16Round(cs16.token, [60, 61]));
    await sleep(30);
    assert.equal(await stop(served), 0);

    const opened = connect(db);
    try {
      const usage = await opened.kysely
        .selectFrom('key_usage')
        .select((eb) => eb.fn.sum<number | string>('count').as('n'))
        .where('key_id', '=', key.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(usage.n), 7, 'every counted request was written at shutdown');
    } finally {
      await opened.close();
    }
    assert.equal((await killsBy(db)).get(cs16.id), 2, 'the buffered UDP lines were written');
  });

  it('a separate `hub worker` serves its own metrics (WORKER_METRICS_PORT), behind METRICS_TOKEN', async () => {
    const { db, cs16 } = preparedDatabase();
    const udpPort = await freeUdpPort();
    const tcp = await listenTcp();
    const metricsPort = tcpPort(tcp);
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    const token = 'worker-metrics-token-0123';
    const worker = await startWorker(db, {
      INGEST_UDP_PORT: String(udpPort),
      INGEST_UDP_HOST: '127.0.0.1',
      HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(metricsPort),
      METRICS_TOKEN: token,
    });
    const base = `http://127.0.0.1:${metricsPort}`;
    try {
      assert.match(worker.output(), new RegExp(`metrics on ${base}/metrics`));
      await sendDatagrams(udpPort, cs16Round(cs16.token, [70]));

      const refused = await fetch(`${base}/metrics`);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('content-type') ?? '', /application\/problem\+json/);
      const scrape = async () => {
        const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200);
        return res.text();
      };
      let text = await scrape();
      const deadline = Date.now() + 10_000;
      while (!/hub_ingest_kills_total\{source="udp"\} 1\b/.test(text) && Date.now() < deadline) {
        await sleep(100);
        text = await scrape();
      }
      assert.match(text, /hub_ingest_lines_total\{source="udp"\} 3\b/, text);
      assert.match(text, /hub_ingest_kills_total\{source="udp"\} 1\b/);
      assert.match(text, /^process_cpu_user_seconds_total /m);
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      const ready = await fetch(`${base}/ready`);
      assert.equal(ready.status, 200);
      assert.equal((await fetch(`${base}/api-platform/v1/users/1`)).status, 404, 'no API route here');
    } finally {
      assert.equal(await stop(worker), 0);
    }
  });

  it('SIGTERM lets a request in flight finish before the process exits', async () => {
    const { db, cs2 } = preparedDatabase();
    const served = await serve(db);
    const url = new URL(served.url);
    const at = Date.now();
    const body = inRound(
      at,
      [1, 2, 3].map(
        (v) =>
          `${stamp(at)}"P9<9><[U:1:9]><CT>" [0 0 0] killed "P${v}<${v}><[U:1:${v}]><TERRORIST>" [0 0 0] with "ak47"`,
      ),
    ).join('\n');
    const socket = tcpConnect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const half = Math.floor(body.length / 2);
    // `Expect: 100-continue`: node answers `100 Continue` when it hands the request to the app, so the
    // SIGTERM below comes after the request is in flight however slow a loaded machine is to read it.
    socket.write(
      `POST /api-platform/ingest/logs HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${cs2.token}\r\n` +
        `Content-Type: text/plain\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const continued = Date.now() + 30_000;
    while (!answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
      assert.ok(Date.now() < continued, `no 100 Continue in 30 s: ${JSON.stringify(answer)}`);
      await sleep(10);
    }
    answer = '';
    socket.write(body.slice(0, half));

    served.child.kill('SIGTERM');
    await sleep(300);
    assert.equal(served.child.exitCode, null, 'still running while a request is in flight');
    const refused = await fetch(`${served.url}/health`).catch((err: unknown) => err);
    assert.ok(refused instanceof Error, 'no new connections once shutting down');
    socket.end(body.slice(half));
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    assert.match(answer, /"kills":3/);
    assert.equal(await served.exit, 0);
    assert.equal((await killsBy(db)).get(cs2.id), 3, 'the drained request was applied');
  });
});

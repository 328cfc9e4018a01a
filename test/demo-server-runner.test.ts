import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DemoGame } from '../src/modules/demo-server/game.js';
import { runDemoGame } from '../src/modules/demo-server/runner.js';
import { Rng } from '../src/seed/random.js';

const PLAYERS = Array.from({ length: 10 }, (_, i) => ({
  name: `p${i}`,
  steamId: String(76561198000000000n + BigInt(i)),
}));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** The demo server's loop against a real HTTP receiver standing in for the ingest route. */
describe('demo server loop', () => {
  const received: { contentType: string | undefined; body: string }[] = [];
  let delayMs = 0;
  let answered = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ contentType: req.headers['content-type'], body });
      const lines = body.split('\n').length;
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ accepted: lines, rejected: 0, kills: 0, matches: 0 }));
        answered++;
      }, delayMs);
    });
  });
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api-platform/ingest/logs/123`;
  });
  after(() => server.close());

  it('posts text/plain batches one at a time; stop waits for the batch in flight and leaves no timer', async () => {
    const timersBefore = timers();
    const failures: string[] = [];
    const run = runDemoGame({
      game: new DemoGame(new Rng(1), PLAYERS),
      url,
      stepMs: 5,
      now: () => Date.UTC(2030, 0, 1),
      onFailure: (m) => failures.push(m),
    });
    while (received.length < 6) await sleep(5);
    assert.match(received[0]?.body ?? '', /^01\/01\/2030 - 00:00:00\.000 - Loading map "de_inferno"\n/);
    assert.ok(received.every((r) => r.contentType === 'text/plain'));

    // the next answer is slow: stop() resolves only once it has come
    delayMs = 150;
    const posted = received.length;
    while (received.length === posted) await sleep(2);
    const stopping = run.stop();
    const answeredAtStop = answered;
    await stopping;
    assert.equal(answered, answeredAtStop + 1, 'the batch in flight was answered before stop() resolved');
    assert.equal(run.totals().batches, answered);

    const total = received.length;
    await sleep(100);
    assert.equal(received.length, total, 'no step after stop()');
    assert.equal(timers(), timersBefore, 'no timer left behind');
    assert.deepEqual(failures, []);
  });

  it('a service that cannot be reached is reported once, and the game plays on', async () => {
    const failures: string[] = [];
    const run = runDemoGame({
      game: new DemoGame(new Rng(1), PLAYERS),
      url: 'http://127.0.0.1:9/api-platform/ingest/logs/123',
      stepMs: 5,
      now: Date.now,
      onFailure: (m) => failures.push(m),
    });
    while (run.totals().failed < 5) await sleep(5);
    await run.stop();
    assert.equal(failures.length, 1);
  });
});

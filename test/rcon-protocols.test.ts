import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  RconError,
  runRconCommand,
  type RconErrorKind,
  type RconTarget,
} from '../src/modules/servers/rcon/index.js';
import { deadPort, delay, type FakeServer } from './helpers/fake-rcon/common.js';
import { fakeSourceServer, type FakeSourceOptions } from './helpers/fake-rcon/source.js';

const PASSWORD = 'correct horse';
const CS2_STATUS = readFileSync(new URL('./fixtures/rcon/cs2-status.txt', import.meta.url), 'utf8');
/** ~20 KB over several packets, with multi-byte characters that packet boundaries will cut. */
const BIG = Array.from({ length: 480 }, (_, i) => `line ${i}: ünïcødé «quotes» "ok" 🎮\n`).join('');

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));
process.on('uncaughtException', (error) => unhandled.push(error));
after(() => assert.deepEqual(unhandled, [], 'no unhandled errors or rejections'));

const servers: FakeServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function source(options: Partial<FakeSourceOptions> = {}): Promise<FakeServer> {
  const server = await fakeSourceServer({ password: PASSWORD, ...options });
  servers.push(server);
  return server;
}

const target = (
  server: { host: string; port: number },
  protocol: RconTarget['protocol'],
  password = PASSWORD,
): RconTarget => ({
  protocol,
  host: server.host,
  port: server.port,
  password,
});

async function rejectsWith(
  promise: Promise<unknown>,
  kind: RconErrorKind,
  message?: RegExp,
): Promise<RconError> {
  const error = await promise.then(
    () => assert.fail(`expected an RconError ${kind}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RconError, `an RconError, not ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  if (message) assert.match(error.message, message);
  return error;
}

/** The client closed its socket: the fake server sees every connection gone. */
async function allClosed(server: FakeServer): Promise<void> {
  for (let i = 0; i < 100 && server.openConnections() > 0; i++) await delay(5);
  assert.equal(server.openConnections(), 0, 'the client closed its connection');
}

describe('Source RCON client (SRCDS and Minecraft flavours)', () => {
  it('logs in, runs a command and returns its output (SRCDS)', async () => {
    const server = await source();
    const result = await runRconCommand(target(server, 'source'), 'changelevel de_inferno');
    assert.equal(result.output, 'ran: changelevel de_inferno');
    assert.equal(result.truncated, false);
    assert.ok(result.durationMs >= 0 && result.durationMs < 2000);
    assert.deepEqual(server.received, ['changelevel de_inferno']);
    await allClosed(server);
  });

  it('returns CS2 `status` output (a real reply shape) byte for byte over many packets', async () => {
    const server = await source({ handler: () => CS2_STATUS, bodyBytes: 100 });
    const result = await runRconCommand(target(server, 'source'), 'status');
    assert.equal(result.output, CS2_STATUS);
    assert.match(result.output, /'Sølvi «Ace» Ødegård'/);
  });

  for (const writes of ['packets', 'coalesced', 'split'] as const) {
    it(`reassembles a 20 KB multi-packet reply written as ${writes}`, async () => {
      const server = await source({ handler: () => BIG, writes, bodyBytes: 4000 });
      const result = await runRconCommand(target(server, 'source'), 'cvarlist');
      assert.equal(result.output, BIG);
      assert.equal(result.truncated, false);
    });
  }

  it('speaks the Minecraft variant: no login preamble, 4096-byte packets, one packet per read', async () => {
    const server = await source({ variant: 'minecraft', handler: () => BIG });
    const result = await runRconCommand(target(server, 'source'), 'list');
    assert.equal(result.output, BIG);
    assert.deepEqual(server.received, ['list']);
    // Ended by the "Unknown request 0" answer to the marker, not by waiting for a quiet period.
    assert.ok(result.durationMs < 250, `took ${result.durationMs} ms`);
  });

  it('ends the reply by a quiet period when the server ignores the end marker', async () => {
    const server = await source({ variant: 'minecraft', ignoreMarker: true, handler: () => BIG });
    const result = await runRconCommand(target(server, 'source'), 'list', { quietMs: 150 });
    assert.equal(result.output, BIG);
    assert.ok(result.durationMs >= 150, `took ${result.durationMs} ms`);
  });

  for (const variant of ['srcds', 'minecraft'] as const) {
    it(`reports a wrong password as auth_failed (${variant}) and runs nothing`, async () => {
      const server = await source({ variant });
      await rejectsWith(
        runRconCommand(target(server, 'source', 'wrong'), 'status'),
        'auth_failed',
        /password/,
      );
      assert.deepEqual(server.received, []);
      await allClosed(server);
    });
  }

  it('times out within the bound on a server that never answers, and closes the socket', async () => {
    const server = await source({ behaviour: 'slow' });
    const started = Date.now();
    await rejectsWith(runRconCommand(target(server, 'source'), 'status', { timeoutMs: 300 }), 'timeout');
    const took = Date.now() - started;
    assert.ok(took >= 290 && took < 800, `took ${took} ms`);
    await allClosed(server);
  });

  it('reports a closed port as unreachable', async () => {
    const port = await deadPort();
    await rejectsWith(
      runRconCommand({ protocol: 'source', host: '127.0.0.1', port, password: PASSWORD }, 'status'),
      'unreachable',
    );
  });

  for (const behaviour of ['garbage', 'oversized', 'hangup'] as const) {
    it(`fails fast with a protocol error on a ${behaviour} server`, async () => {
      const server = await source({ behaviour });
      const started = Date.now();
      await rejectsWith(runRconCommand(target(server, 'source'), 'status'), 'protocol');
      assert.ok(Date.now() - started < 1000);
      await allClosed(server);
    });
  }

  it('caps the output at maxOutputBytes on a character boundary', async () => {
    const server = await source({ handler: () => BIG });
    const bytes = Buffer.from(BIG);
    // A cap two bytes into the 10th 🎮 (4 bytes): the cut character is dropped whole.
    let emoji = -1;
    for (let i = 0; i < 10; i++) emoji = bytes.indexOf('🎮', emoji + 1);
    const result = await runRconCommand(target(server, 'source'), 'cvarlist', { maxOutputBytes: emoji + 2 });
    assert.equal(result.truncated, true);
    assert.equal(result.output, bytes.subarray(0, emoji).toString('utf8'));
    await allClosed(server);
  });

  it('refuses a command with a line break or NUL before connecting', async () => {
    const server = await source();
    for (const command of ['status\nquit', 'say hi\r\nquit', 'say \u0000quit', '   ']) {
      await rejectsWith(runRconCommand(target(server, 'source'), command), 'protocol');
    }
    assert.deepEqual(server.received, []);
  });

  it('round-trips any NUL-free output (property)', async () => {
    let next = '';
    const server = await source({ handler: () => next, bodyBytes: 512 });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 3000 }).filter((s) => !s.includes('\u0000')),
        async (output) => {
          next = output;
          const result = await runRconCommand(target(server, 'source'), 'echo');
          assert.equal(result.output, output);
        },
      ),
      { numRuns: 60 },
    );
  });
});

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
import { encodePacket } from '../src/modules/servers/rcon/source-packet.js';
import { deadPort, delay, listenTcp, type FakeServer } from './helpers/fake-rcon/common.js';
import { deadUdpPort, fakeGoldSrcServer, type FakeGoldSrcOptions } from './helpers/fake-rcon/goldsrc.js';
import { fakeSourceServer, type FakeSourceOptions } from './helpers/fake-rcon/source.js';
import { fakeWebRconServer, type FakeWebRconOptions } from './helpers/fake-rcon/webrcon.js';

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

async function goldsrc(options: Partial<FakeGoldSrcOptions> = {}): Promise<FakeServer> {
  const server = await fakeGoldSrcServer({ password: PASSWORD, ...options });
  servers.push(server);
  return server;
}

async function webrcon(options: Partial<FakeWebRconOptions> = {}): Promise<FakeServer> {
  const server = await fakeWebRconServer({ password: PASSWORD, ...options });
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

  for (const behaviour of ['oversized', 'hangup'] as const) {
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

describe('GoldSrc rcon client (UDP, challenge rcon)', () => {
  it('gets a challenge, runs a command and returns its output', async () => {
    const server = await goldsrc();
    const result = await runRconCommand(target(server, 'goldsrc'), 'changelevel de_dust2', { quietMs: 100 });
    assert.equal(result.output, 'ran: changelevel de_dust2');
    assert.equal(result.truncated, false);
    assert.deepEqual(server.received, ['changelevel de_dust2']);
  });

  it('collects a reply spread over many datagrams until the quiet period', async () => {
    const server = await goldsrc({ handler: () => BIG, datagramBytes: 1000 });
    const result = await runRconCommand(target(server, 'goldsrc'), 'cvarlist', { quietMs: 150 });
    assert.equal(result.output, BIG);
    assert.ok(result.durationMs >= 150, `took ${result.durationMs} ms`);
  });

  it('passes quotes and unicode in the command through', async () => {
    const server = await goldsrc();
    await runRconCommand(target(server, 'goldsrc'), 'say "gg" — ünïcødé 🎮', { quietMs: 50 });
    assert.deepEqual(server.received, ['say "gg" — ünïcødé 🎮']);
  });

  it('reports "Bad rcon_password." as auth_failed', async () => {
    const server = await goldsrc();
    await rejectsWith(
      runRconCommand(target(server, 'goldsrc', 'wrong'), 'status'),
      'auth_failed',
      /password/,
    );
    assert.deepEqual(server.received, []);
  });

  it('caps the output at maxOutputBytes', async () => {
    const server = await goldsrc({ handler: () => BIG, datagramBytes: 1000 });
    const result = await runRconCommand(target(server, 'goldsrc'), 'cvarlist', { maxOutputBytes: 2500 });
    assert.equal(result.truncated, true);
    assert.ok(BIG.startsWith(result.output));
    assert.ok(Buffer.byteLength(result.output) > 2490 && Buffer.byteLength(result.output) <= 2500);
  });
});

describe('WebRCON client (Rust, WebSocket)', () => {
  it('sends {Identifier, Message, Name} and returns the reply with its Identifier, skipping broadcasts', async () => {
    const server = await webrcon();
    const result = await runRconCommand(target(server, 'webrcon'), 'server.save');
    assert.equal(result.output, 'ran: server.save');
    assert.equal(result.truncated, false);
    assert.deepEqual(server.received, ['server.save']);
    await allClosed(server);
  });

  it('returns a 20 KB reply whole', async () => {
    const server = await webrcon({ handler: () => BIG });
    assert.equal((await runRconCommand(target(server, 'webrcon'), 'status')).output, BIG);
  });

  for (const wrongPassword of ['refuse', 'close'] as const) {
    it(`reports a wrong password as auth_failed (upgrade ${wrongPassword === 'refuse' ? 'refused' : 'then closed'})`, async () => {
      const server = await webrcon({ wrongPassword });
      await rejectsWith(
        runRconCommand(target(server, 'webrcon', 'wrong'), 'status'),
        'auth_failed',
        /password/,
      );
      assert.deepEqual(server.received, []);
      await allClosed(server);
    });
  }

  it('puts a password with URL characters in the path safely', async () => {
    const server = await webrcon({ password: 'p@ss/w?rd #1' });
    const result = await runRconCommand(target(server, 'webrcon', 'p@ss/w?rd #1'), 'status');
    assert.equal(result.output, 'ran: status');
  });

  it('caps the output at maxOutputBytes', async () => {
    const server = await webrcon({ handler: () => BIG });
    const result = await runRconCommand(target(server, 'webrcon'), 'status', { maxOutputBytes: 3000 });
    assert.equal(result.truncated, true);
    assert.ok(BIG.startsWith(result.output));
  });
});

describe('every protocol: slow, dead and garbage servers', () => {
  const protocols = [
    { protocol: 'source', fake: (behaviour: 'slow' | 'garbage') => source({ behaviour }), dead: deadPort },
    {
      protocol: 'goldsrc',
      fake: (behaviour: 'slow' | 'garbage') => goldsrc({ behaviour }),
      dead: deadUdpPort,
    },
    { protocol: 'webrcon', fake: (behaviour: 'slow' | 'garbage') => webrcon({ behaviour }), dead: deadPort },
  ] as const;
  for (const { protocol, fake, dead } of protocols) {
    it(`${protocol}: times out within the bound on a server that never answers, and closes the socket`, async () => {
      const server = await fake('slow');
      const started = Date.now();
      await rejectsWith(runRconCommand(target(server, protocol), 'status', { timeoutMs: 300 }), 'timeout');
      const took = Date.now() - started;
      assert.ok(took >= 290 && took < 800, `took ${took} ms`);
      await allClosed(server);
    });

    it(`${protocol}: reports a closed port as unreachable at once`, async () => {
      const port = await dead();
      const started = Date.now();
      await rejectsWith(
        runRconCommand({ protocol, host: '127.0.0.1', port, password: PASSWORD }, 'status'),
        'unreachable',
      );
      assert.ok(Date.now() - started < 1000, 'the refusal ends it, not the timeout');
    });

    it(`${protocol}: fails fast with a protocol error on a server answering garbage`, async () => {
      const server = await fake('garbage');
      const started = Date.now();
      await rejectsWith(runRconCommand(target(server, protocol), 'status'), 'protocol');
      assert.ok(Date.now() - started < 1000);
      await allClosed(server);
    });
  }
});

describe('hostile servers (property)', () => {
  it('Source: whatever bytes the server sends, the client settles with a result or an RconError and closes', async () => {
    let reply = Buffer.alloc(0);
    let hangUp = false;
    const listener = await listenTcp((socket) => {
      socket.once('data', () => {
        socket.write(reply);
        if (hangUp) socket.end();
      });
    });
    servers.push({ host: '127.0.0.1', received: [], ...listener });
    const loginOk = (id: number) => encodePacket(id, 2, '');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
          fc
            .tuple(
              fc.integer({ min: -2, max: 3 }),
              fc.integer({ min: -1, max: 3 }),
              fc.string({ maxLength: 50 }),
            )
            .map(([id, type, body]) => Buffer.concat([loginOk(id), encodePacket(id, type, body)])),
        ),
        fc.boolean(),
        async (bytes, close) => {
          reply = bytes;
          hangUp = close;
          const outcome = await runRconCommand(
            { protocol: 'source', host: '127.0.0.1', port: listener.port, password: PASSWORD },
            'status',
            { timeoutMs: 100, quietMs: 20 },
          ).catch((error: unknown) => error);
          assert.ok(
            outcome instanceof RconError || typeof (outcome as { output?: unknown }).output === 'string',
          );
        },
      ),
      { numRuns: 60 },
    );
    for (let i = 0; i < 100 && listener.openConnections() > 0; i++) await delay(5);
    assert.equal(listener.openConnections(), 0);
  });
});

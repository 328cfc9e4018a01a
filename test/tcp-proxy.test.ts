import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { tcpProxy } from './helpers/tcp-proxy.js';

/**
 * The delaying proxy the fault tests put between the hub and Redis must slow replies down without
 * reordering them: a Redis client pairs replies with commands by their order, so a reordered chunk
 * hands one command another's reply (the quota e2e test once got a heartbeat's integer as a lease).
 */
describe('the test TCP proxy', () => {
  it('delays replies without reordering them, while the delay changes', async () => {
    const COUNT = 2000;
    // a server that answers every byte it gets with the next number of a sequence, one write each
    const server = createServer((socket) => {
      let sequence = 0;
      socket.on('data', (chunk: Buffer) => {
        for (let i = 0; i < chunk.length; i++) socket.write(`${sequence++};`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const proxy = await tcpProxy(new URL(`tcp://127.0.0.1:${(server.address() as AddressInfo).port}`));
    const client = connect(Number(new URL(proxy.url('tcp://x:1')).port), '127.0.0.1');
    await once(client, 'connect');
    let received = '';
    const all = new Promise<void>((resolve) => {
      client.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.split(';').length > COUNT) resolve();
      });
    });
    try {
      // requests spread over time while the delay goes 20 → 0 → 7 → 1 … ms: chunks due in the same
      // millisecond from timers of different durations
      for (let i = 0; i < COUNT; i++) {
        if (i % 50 === 0) proxy.delay([20, 0, 7, 1, 13, 2][(i / 50) % 6] ?? 0);
        client.write('x');
        if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await all;
      const numbers = received.split(';').filter(Boolean).map(Number);
      const outOfOrder = numbers.findIndex((n, i) => n !== i);
      assert.equal(
        outOfOrder,
        -1,
        `reply ${outOfOrder} came out of order: ${numbers.slice(Math.max(0, outOfOrder - 3), outOfOrder + 3).join(' ')}`,
      );
    } finally {
      client.destroy();
      await proxy.close();
      server.close();
    }
  });
});

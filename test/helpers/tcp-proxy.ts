import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on a random loopback port in front of `target`, which a test can shut to make a
 * dependency (PostgreSQL, Redis) vanish mid-run: new connections are refused, open ones are cut.
 */
export async function tcpProxy(target: URL): Promise<{ url(of: string): string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url(of: string) {
      const url = new URL(of);
      url.hostname = '127.0.0.1';
      url.port = String(address.port);
      return url.toString();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

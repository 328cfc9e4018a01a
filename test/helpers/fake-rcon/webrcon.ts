import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { echoHandler, type CommandHandler, type FakeServer } from './common.js';

export interface FakeWebRconOptions {
  password: string;
  handler?: CommandHandler;
  /** How a wrong password is turned away: `refuse` the upgrade with 401, or `close` right after it. */
  wrongPassword?: 'refuse' | 'close';
  /** `slow`: never answers; `garbage`: answers with text that is not JSON. */
  behaviour?: 'normal' | 'slow' | 'garbage';
}

/**
 * A fake Rust WebRCON server: ws://127.0.0.1:port/<password>, {Identifier, Message, Name} in,
 * {Identifier, Message, Type, Stacktrace} out, after a console broadcast (Identifier 0) that a
 * client must skip.
 */
export async function fakeWebRconServer(options: FakeWebRconOptions): Promise<FakeServer> {
  const handler = options.handler ?? echoHandler;
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const http = createServer((_request, response) => response.writeHead(426).end());
  const wss = new WebSocketServer({ noServer: true });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  http.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname.slice(1);
    const authed = decodeURIComponent(path) === options.password;
    if (!authed && options.wrongPassword !== 'close') {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (!authed) return ws.close();
      ws.on('message', (data) => {
        if (options.behaviour === 'slow') return;
        if (options.behaviour === 'garbage') return ws.send('<html>not json</html>');
        const { Identifier, Message } = JSON.parse((data as Buffer).toString('utf8')) as {
          Identifier: number;
          Message: string;
        };
        received.push(Message);
        ws.send(
          JSON.stringify({ Identifier: 0, Message: '[chat] someone: hello', Type: 'Chat', Stacktrace: '' }),
        );
        void Promise.resolve(handler(Message)).then((output) =>
          ws.send(JSON.stringify({ Identifier, Message: output, Type: 'Generic', Stacktrace: '' })),
        );
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    host: '127.0.0.1',
    port,
    received,
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        wss.close();
        http.close(() => resolve());
      }),
  };
}

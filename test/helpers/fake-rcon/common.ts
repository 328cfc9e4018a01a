import { createServer, type Server, type Socket } from 'node:net';

/** The command handler of a fake server: its output for one command. */
export type CommandHandler = (command: string) => string | Promise<string>;

export interface FakeServer {
  host: string;
  port: number;
  /** Commands the server executed, in order (after a successful login). */
  received: string[];
  /** Connections (TCP) or peers (UDP) the server still has open: 0 once a client hung up. */
  openConnections(): number;
  close(): Promise<void>;
}

export const echoHandler: CommandHandler = (command) => `ran: ${command}`;

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A loopback port with nothing listening on it (a dead server): connections are refused. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TcpListener {
  server: Server;
  port: number;
  openConnections: () => number;
  close: () => Promise<void>;
}

/** A TCP server on a random loopback port whose close() also cuts open connections. */
export async function listenTcp(onConnection: (socket: Socket) => void): Promise<TcpListener> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    port,
    openConnections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Splits bytes into pieces of at most `size` bytes (a UTF-8 character may straddle two). */
export function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return pieces.length === 0 ? [Buffer.alloc(0)] : pieces;
}

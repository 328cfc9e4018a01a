import { createSocket, type RemoteInfo } from 'node:dgram';
import { chunksOf, echoHandler, type CommandHandler, type FakeServer } from './common.js';

export interface FakeGoldSrcOptions {
  password: string;
  handler?: CommandHandler;
  /** `slow`: never answers; `garbage`: answers with a datagram that is not a GoldSrc packet. */
  behaviour?: 'normal' | 'slow' | 'garbage';
  /** Largest output per `l` datagram; default 1024. */
  datagramBytes?: number;
}

const HEADER = Buffer.from([0xff, 0xff, 0xff, 0xff]);
const RCON = /^rcon (\d+) "([^"]*)" (.*)$/s;

/** A fake HLDS answering `challenge rcon` and `rcon` on a random loopback UDP port. */
export async function fakeGoldSrcServer(options: FakeGoldSrcOptions): Promise<FakeServer> {
  const handler = options.handler ?? echoHandler;
  const datagramBytes = options.datagramBytes ?? 1024;
  const received: string[] = [];
  const challenges = new Map<string, string>();
  const socket = createSocket('udp4');
  const reply = (to: RemoteInfo, payload: Buffer) =>
    socket.send(Buffer.concat([HEADER, payload]), to.port, to.address);
  const print = (to: RemoteInfo, bytes: Buffer) =>
    reply(to, Buffer.concat([Buffer.from('l'), bytes, Buffer.from([0])]));

  socket.on('message', (datagram, from) => {
    if (options.behaviour === 'slow' || !datagram.subarray(0, 4).equals(HEADER)) return;
    if (options.behaviour === 'garbage') {
      socket.send(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'), from.port, from.address);
      return;
    }
    const text = datagram.subarray(4).toString('utf8');
    const peer = `${from.address}:${from.port}`;
    if (text.startsWith('challenge rcon')) {
      const challenge = String(Math.floor(Math.random() * 2 ** 31));
      challenges.set(peer, challenge);
      reply(from, Buffer.from(`challenge rcon ${challenge}\n\0`));
      return;
    }
    const rcon = RCON.exec(text);
    if (rcon === null) return;
    const [, challenge, password, command] = rcon as unknown as [string, string, string, string];
    if (challenges.get(peer) !== challenge) return print(from, Buffer.from('Bad challenge.\n'));
    if (password !== options.password) return print(from, Buffer.from('Bad rcon_password.\n'));
    received.push(command);
    void Promise.resolve(handler(command)).then((output) => {
      for (const piece of chunksOf(Buffer.from(output, 'utf8'), datagramBytes)) print(from, piece);
    });
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    host: '127.0.0.1',
    port: socket.address().port,
    received,
    openConnections: () => 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A loopback UDP port with nothing bound to it: datagrams get ICMP port unreachable. */
export async function deadUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

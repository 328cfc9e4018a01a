import { createSocket } from 'node:dgram';

/** A GoldSrc `logaddress_add` datagram: 0xFFFFFFFF, `S` + log secret (or `R` without), the line, NUL. */
export const udpLog = (secret: string, line: string, type: 'R' | 'S' = 'S'): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), Buffer.from(`${type}${secret}${line}\n\0`, 'utf8')]);

/** A UDP port nobody listens on right now (bound, read and released). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/**
 * Sends `datagrams` to 127.0.0.1:`port` in order, `perTick` of them back to back, then yields a
 * macrotask before the next group (a game server writes its log as play goes, not all at once).
 */
export async function sendDatagrams(
  port: number,
  datagrams: readonly Buffer[],
  options: { perTick?: number } = {},
): Promise<void> {
  const perTick = options.perTick ?? datagrams.length;
  const client = createSocket('udp4');
  try {
    for (let i = 0; i < datagrams.length; i += perTick) {
      for (const d of datagrams.slice(i, i + perTick))
        await new Promise<void>((resolve, reject) =>
          client.send(d, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
        );
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    client.close();
  }
}

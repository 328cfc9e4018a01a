import type { Socket } from 'node:net';
import {
  encodePacket,
  PacketReader,
  SERVERDATA_AUTH,
  SERVERDATA_AUTH_RESPONSE,
  SERVERDATA_EXECCOMMAND,
  SERVERDATA_RESPONSE_VALUE,
  type SourcePacket,
} from '../../../src/modules/servers/rcon/source-packet.js';
import { chunksOf, delay, echoHandler, listenTcp, type CommandHandler, type FakeServer } from './common.js';

export interface FakeSourceOptions {
  password: string;
  handler?: CommandHandler;
  /**
   * `srcds`: an empty RESPONSE_VALUE before the AUTH_RESPONSE, the end marker mirrored (then the
   * 00 01 00 00 packet). `minecraft`: no empty packet at login, one packet per socket read (a read
   * holding anything else drops the connection, as the vanilla server does), bodies of up to 4096
   * bytes, unknown packet types answered with "Unknown request <type in hex>".
   */
  variant?: 'srcds' | 'minecraft';
  /**
   * How replies are written: `packets` one write per packet; `coalesced` every packet of one
   * answer in one write; `split` each answer cut into small writes (inside the size field too)
   * with pauses, so the client reads partial packets.
   */
  writes?: 'packets' | 'coalesced' | 'split';
  /** `slow`: accepts, reads, never answers; `garbage`: answers with an HTTP banner; `hangup`: closes on the command; `oversized`: announces a 1 MB packet. */
  behaviour?: 'normal' | 'slow' | 'garbage' | 'hangup' | 'oversized';
  /** Answer the end marker with nothing (a server the client must end by a quiet period). */
  ignoreMarker?: boolean;
  /** Largest body per response packet; default 4096. */
  bodyBytes?: number;
}

/** A fake Source RCON server (SRCDS or Minecraft flavour) on a random loopback port. */
export async function fakeSourceServer(options: FakeSourceOptions): Promise<FakeServer> {
  const handler = options.handler ?? echoHandler;
  const variant = options.variant ?? 'srcds';
  const writes = options.writes ?? 'packets';
  const behaviour = options.behaviour ?? 'normal';
  const bodyBytes = options.bodyBytes ?? 4096;
  const received: string[] = [];

  const serve = (socket: Socket) => {
    socket.setNoDelay(true);
    const reader = new PacketReader();
    let authed = false;
    let queue = Promise.resolve();
    const send = async (packets: Buffer[]) => {
      if (writes === 'packets') {
        for (const packet of packets) socket.write(packet);
        return;
      }
      const all = Buffer.concat(packets);
      if (writes === 'coalesced') {
        socket.write(all);
        return;
      }
      for (const piece of splitPoints(all)) {
        socket.write(piece);
        await delay(2);
      }
    };
    const answer = async (packet: SourcePacket): Promise<void> => {
      if (packet.type === SERVERDATA_AUTH) {
        authed = packet.body.toString('utf8') === options.password;
        const verdict = encodePacket(authed ? packet.id : -1, SERVERDATA_AUTH_RESPONSE, '');
        return send(
          variant === 'srcds' ? [encodePacket(packet.id, SERVERDATA_RESPONSE_VALUE, ''), verdict] : [verdict],
        );
      }
      if (!authed) return send([encodePacket(-1, SERVERDATA_AUTH_RESPONSE, '')]);
      if (packet.type === SERVERDATA_EXECCOMMAND) {
        const command = packet.body.toString('utf8');
        if (behaviour === 'hangup') {
          socket.destroy();
          return;
        }
        received.push(command);
        const output = Buffer.from(await handler(command), 'utf8');
        return send(
          chunksOf(output, bodyBytes).map((body) => encodePacket(packet.id, SERVERDATA_RESPONSE_VALUE, body)),
        );
      }
      if (options.ignoreMarker === true) return;
      if (variant === 'minecraft') {
        return send([
          encodePacket(packet.id, SERVERDATA_RESPONSE_VALUE, `Unknown request ${packet.type.toString(16)}`),
        ]);
      }
      if (packet.type === SERVERDATA_RESPONSE_VALUE) {
        return send([
          encodePacket(packet.id, SERVERDATA_RESPONSE_VALUE, ''),
          encodePacket(packet.id, SERVERDATA_RESPONSE_VALUE, Buffer.from([0, 1, 0, 0])),
        ]);
      }
    };

    socket.on('data', (chunk) => {
      if (behaviour === 'slow') return;
      if (behaviour === 'garbage') {
        socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      if (behaviour === 'oversized') {
        const header = Buffer.alloc(12);
        header.writeInt32LE(1_000_000, 0);
        socket.write(header);
        return;
      }
      if (variant === 'minecraft' && (chunk.length < 4 || chunk.readInt32LE(0) !== chunk.length - 4)) {
        socket.destroy();
        return;
      }
      let packets: SourcePacket[];
      try {
        packets = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const packet of packets)
        queue = queue
          .then(() => answer(packet))
          .catch(() => {
            socket.destroy();
          });
    });
  };

  const listening = await listenTcp(serve);
  return {
    host: '127.0.0.1',
    port: listening.port,
    received,
    openConnections: listening.openConnections,
    close: listening.close,
  };
}

/** Cuts bytes into writes that split the first size field and then go in uneven pieces. */
function splitPoints(all: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const size of [2, 5, 11, 3]) {
    if (at >= all.length) break;
    pieces.push(all.subarray(at, at + size));
    at += size;
  }
  while (at < all.length) {
    pieces.push(all.subarray(at, at + 1777));
    at += 1777;
  }
  return pieces;
}

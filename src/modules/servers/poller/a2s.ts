import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';

/**
 * Valve A2S_INFO over UDP (https://developer.valvesoftware.com/wiki/Server_queries):
 *   request   FF FF FF FF 'T' "Source Engine Query\0" [challenge: 4 bytes]
 *   challenge FF FF FF FF 'A' <4 bytes>   -> repeat the request with those 4 bytes appended
 *   answer    FF FF FF FF 'I' (Source, also CS2, Rust and current CS 1.6) or 'm' (obsolete GoldSrc)
 */
export interface ServerInfo {
  name: string;
  map: string;
  players: number;
  maxPlayers: number;
}

const HEADER = Buffer.from([0xff, 0xff, 0xff, 0xff]);
export const A2S_INFO_REQUEST = Buffer.concat([HEADER, Buffer.from('TSource Engine Query\0', 'latin1')]);
const MAX_CHALLENGES = 3;

class Reader {
  offset: number;
  constructor(
    readonly buf: Buffer,
    offset: number,
  ) {
    this.offset = offset;
  }
  byte(): number {
    if (this.offset >= this.buf.length) throw new Error('A2S answer too short');
    return this.buf.readUInt8(this.offset++);
  }
  short(): number {
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }
  string(): string {
    const end = this.buf.indexOf(0, this.offset);
    if (end === -1) throw new Error('A2S string not terminated');
    const s = this.buf.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return s;
  }
}

export function parseInfo(msg: Buffer): ServerInfo {
  const type = msg[4];
  const r = new Reader(msg, 5);
  if (type === 0x49 /* I */) {
    r.byte(); // protocol
    const name = r.string();
    const map = r.string();
    r.string(); // folder
    r.string(); // game
    r.short(); // app id
    const players = r.byte();
    const maxPlayers = r.byte();
    return { name, map, players, maxPlayers };
  }
  if (type === 0x6d /* m */) {
    r.string(); // address
    const name = r.string();
    const map = r.string();
    r.string(); // folder
    r.string(); // game
    const players = r.byte();
    const maxPlayers = r.byte();
    return { name, map, players, maxPlayers };
  }
  throw new Error(`unexpected A2S answer type 0x${(type ?? 0).toString(16)}`);
}

export function queryA2S(host: string, port: number, timeoutMs: number): Promise<ServerInfo> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    let challenges = 0;
    const finish = (err: Error | null, info?: ServerInfo) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else if (info) resolve(info);
    };
    const timer = setTimeout(() => finish(new Error(`A2S_INFO timed out after ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => finish(err));
    socket.on('message', (msg) => {
      if (msg.length < 5 || !msg.subarray(0, 4).equals(HEADER)) return; // split or foreign packet
      try {
        if (msg[4] === 0x41 /* A: S2C_CHALLENGE */) {
          if (++challenges > MAX_CHALLENGES || msg.length < 9) throw new Error('A2S challenge loop');
          socket.send(Buffer.concat([A2S_INFO_REQUEST, msg.subarray(5, 9)]), port, host);
          return;
        }
        finish(null, parseInfo(msg));
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    });
    socket.send(A2S_INFO_REQUEST, port, host);
  });
}

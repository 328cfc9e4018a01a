import { connect } from 'node:net';

/**
 * Minecraft Server List Ping (Java Edition, https://wiki.vg/Server_List_Ping) over TCP. Packets
 * are framed as VarInt length + VarInt packet id + data:
 *   -> Handshake (0x00): VarInt protocol (-1: any), String host, UShort port, VarInt next state 1
 *   -> Status Request (0x00), empty
 *   <- Status Response (0x00): String JSON { version, players: { max, online }, description }
 */
export interface SlpStatus {
  players: number;
  maxPlayers: number;
  version: string;
}

export function varInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0);
  return Buffer.from(bytes);
}

/** Reads a VarInt at `offset`: [value, bytes used], or undefined when the buffer ends first. */
export function readVarInt(buf: Buffer, offset: number): [number, number] | undefined {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (offset + i >= buf.length) return undefined;
    const byte = buf[offset + i] ?? 0;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value | 0, i + 1];
  }
  throw new Error('VarInt too long');
}

export const packet = (id: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat([varInt(id), ...parts]);
  return Buffer.concat([varInt(body.length), body]);
};

const mcString = (s: string) => {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([varInt(bytes.length), bytes]);
};

export function querySLP(host: string, port: number, timeoutMs: number): Promise<SlpStatus> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let data = Buffer.alloc(0);
    const finish = (err: Error | null, status?: SlpStatus) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else if (status) resolve(status);
    };
    const timer = setTimeout(
      () => finish(new Error(`Server List Ping timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('error', (err) => finish(err));
    socket.on('connect', () => {
      const portBytes = Buffer.alloc(2);
      portBytes.writeUInt16BE(port);
      socket.write(
        Buffer.concat([packet(0x00, varInt(-1), mcString(host), portBytes, varInt(1)), packet(0x00)]),
      );
    });
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      try {
        const length = readVarInt(data, 0);
        if (!length || data.length < length[1] + length[0]) return;
        const body = data.subarray(length[1], length[1] + length[0]);
        const id = readVarInt(body, 0);
        if (!id || id[0] !== 0) throw new Error('unexpected Server List Ping packet');
        const strLen = readVarInt(body, id[1]);
        if (!strLen) throw new Error('truncated Server List Ping answer');
        const start = id[1] + strLen[1];
        const json = JSON.parse(body.toString('utf8', start, start + strLen[0])) as {
          version?: { name?: unknown };
          players?: { online?: unknown; max?: unknown };
        };
        const online = Number(json.players?.online);
        const max = Number(json.players?.max);
        if (!Number.isInteger(online) || !Number.isInteger(max))
          throw new Error('Server List Ping without players');
        finish(null, {
          players: online,
          maxPlayers: max,
          version: typeof json.version?.name === 'string' ? json.version.name : '',
        });
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

/**
 * Source RCON packets (Valve Developer Wiki, "Source RCON Protocol"), also spoken by Minecraft:
 * little-endian int32 size (bytes after this field), int32 id, int32 type, body, then two NULs
 * (the body's terminator and an empty second string).
 */
export const SERVERDATA_AUTH = 3;
export const SERVERDATA_AUTH_RESPONSE = 2;
export const SERVERDATA_EXECCOMMAND = 2;
export const SERVERDATA_RESPONSE_VALUE = 0;

/** id + type + the two NULs of an empty body. */
export const MIN_PACKET_SIZE = 10;
/**
 * The wiki gives 4096 as the largest size, and Minecraft sends bodies of up to 4096 bytes (size
 * 4106); SRCDS has been seen exceeding it on `cvarlist`. Anything far beyond is not RCON (an HTTP
 * banner read as a size is ~1.2 GB), so it fails at once instead of waiting to buffer it.
 */
export const MAX_PACKET_SIZE = 65536;

export interface SourcePacket {
  id: number;
  type: number;
  body: Buffer;
}

export function encodePacket(id: number, type: number, body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const packet = Buffer.alloc(4 + 8 + bytes.length + 2);
  packet.writeInt32LE(8 + bytes.length + 2, 0);
  packet.writeInt32LE(id, 4);
  packet.writeInt32LE(type, 8);
  bytes.copy(packet, 12);
  return packet;
}

export class PacketSizeError extends Error {}

/**
 * Cuts a TCP byte stream into packets: a packet may arrive split over several reads and several
 * packets may arrive in one read. Some servers end a packet with one NUL instead of two, so up to
 * two trailing NULs are stripped from the body rather than required.
 */
export class PacketReader {
  private pending: Buffer = Buffer.alloc(0);

  /** Adds bytes read from the socket and returns the packets now complete; throws PacketSizeError. */
  push(chunk: Buffer): SourcePacket[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const packets: SourcePacket[] = [];
    while (this.pending.length >= 4) {
      const size = this.pending.readInt32LE(0);
      if (size < 8 || size > MAX_PACKET_SIZE) {
        throw new PacketSizeError(`a packet of ${size} bytes is not RCON`);
      }
      if (this.pending.length < 4 + size) break;
      const id = this.pending.readInt32LE(4);
      const type = this.pending.readInt32LE(8);
      let end = 4 + size;
      for (let nul = 0; nul < 2 && end > 12 && this.pending[end - 1] === 0; nul++) end--;
      packets.push({ id, type, body: Buffer.from(this.pending.subarray(12, end)) });
      this.pending = this.pending.subarray(4 + size);
    }
    return packets;
  }
}

import { parseLogLine, type ParseResult } from './log-line.js';

/**
 * GoldSrc (CS 1.6) logs as `logaddress_add` sends them over UDP: one line per datagram,
 *   0xFF 0xFF 0xFF 0xFF 'R' <line> [\n] [\0]              (no sv_logsecret)
 *   0xFF 0xFF 0xFF 0xFF 'S' <sv_logsecret> <line> [\n] [\0] (S2A_LOGSTRING2)
 * The secret is written straight before the line, which starts with `L `; our tokens are all
 * digits, so the split is unambiguous. Lines use `STEAM_X:Y:Z` ids and carry no positions
 * (distance 0). Newer Source engines may add `T<16 hex> ` after the secret; it is skipped.
 */
export interface LogPacket {
  secret: string | null;
  line: string;
}

const HEADER = 0xff;
const SECRET_AND_LINE = /^(\d*)(?:T[0-9A-F]{16} )?(L .*)$/s;

export function parseLogPacket(packet: Buffer): LogPacket | null {
  if (packet.length < 6) return null;
  for (let i = 0; i < 4; i++) if (packet[i] !== HEADER) return null;
  const type = packet[4];
  let body = packet.toString('utf8', 5);
  const nul = body.indexOf('\0');
  if (nul !== -1) body = body.slice(0, nul);
  body = body.replace(/[\r\n]+$/, '');
  if (type === 0x52 /* R */) return { secret: null, line: body.replace(/^T[0-9A-F]{16} /, '') };
  if (type === 0x53 /* S */) {
    const m = SECRET_AND_LINE.exec(body);
    return m ? { secret: m[1] ?? '', line: m[2] ?? '' } : null;
  }
  return null;
}

export const parseGoldSrcLine = (line: string): ParseResult => parseLogLine(line);

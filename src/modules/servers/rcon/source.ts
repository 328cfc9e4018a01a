import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { connectError, RconError } from './errors.js';
import { boundedExchange } from './exchange.js';
import { CappedOutput } from './output.js';
import {
  encodePacket,
  PacketReader,
  SERVERDATA_AUTH,
  SERVERDATA_AUTH_RESPONSE,
  SERVERDATA_EXECCOMMAND,
  SERVERDATA_RESPONSE_VALUE,
  type SourcePacket,
} from './source-packet.js';
import type { ExchangeLimits, RconResultBody, RconTarget } from './types.js';

/**
 * How long after sending the command the end marker goes out if no reply came first. Minecraft
 * reads its socket one packet per read (and drops the connection when a read holds two), so the
 * marker must not travel in the same segment as the command.
 */
const MARKER_DELAY_MS = 100;

/**
 * Source RCON over TCP: SERVERDATA_AUTH, then SERVERDATA_EXECCOMMAND, output reassembled from
 * SERVERDATA_RESPONSE_VALUE packets.
 *
 * The end of a multi-packet reply is found with the standard trick: an empty RESPONSE_VALUE
 * "end marker" sent after the command. Servers answer packets in order, so once a packet with
 * the marker's id arrives the command's output is complete. SRCDS mirrors the marker; Minecraft
 * does not mirror it but answers any unknown type with "Unknown request 0" under the same id,
 * which ends the reply just as well. The marker is sent once the first reply packet has arrived
 * (or MARKER_DELAY_MS after the command), never coalesced with the command, because Minecraft
 * drops a connection whose read holds two packets. Servers that answer the marker with nothing
 * at all are covered by a quiet period: once the marker is out, `quietMs` without a packet ends
 * the reply. A close after some output also ends it.
 */
export function sourceCommand(
  target: RconTarget,
  command: string,
  limits: ExchangeLimits,
): Promise<RconResultBody> {
  const where = `Source RCON at ${target.host}:${target.port}`;
  return boundedExchange<RconResultBody>(limits.timeoutMs, where, (settle) => {
    const authId = randomInt(1, 2 ** 30);
    const execId = authId + 1;
    const markerId = authId + 2;
    const reader = new PacketReader();
    const output = new CappedOutput(limits.maxOutputBytes);
    let connected = false;
    let stage: 'auth' | 'exec' = 'auth';
    let replies = 0;
    let markerTimer: NodeJS.Timeout | undefined;
    let quietTimer: NodeJS.Timeout | undefined;

    const socket = connect({ host: target.host, port: target.port });
    socket.setNoDelay(true);
    const done = () => settle.resolve({ output: output.text(), truncated: output.truncated });
    const fail = (kind: RconError['kind'], message: string) =>
      settle.reject(new RconError(kind, `${where}: ${message}`));
    const sendMarker = () => {
      if (markerTimer === undefined || !settle.open) return;
      clearTimeout(markerTimer);
      markerTimer = undefined;
      socket.write(encodePacket(markerId, SERVERDATA_RESPONSE_VALUE, ''));
      quietTimer = setTimeout(done, limits.quietMs);
    };

    const onPacket = (packet: SourcePacket) => {
      if (stage === 'auth') {
        // SRCDS sends an empty RESPONSE_VALUE before the AUTH_RESPONSE; Minecraft does not.
        if (packet.type !== SERVERDATA_AUTH_RESPONSE) return;
        if (packet.id === -1) return fail('auth_failed', 'the server refused the RCON password');
        if (packet.id !== authId) return fail('protocol', `unexpected login answer id ${packet.id}`);
        stage = 'exec';
        socket.write(encodePacket(execId, SERVERDATA_EXECCOMMAND, command));
        markerTimer = setTimeout(sendMarker, MARKER_DELAY_MS);
        return;
      }
      if (packet.id === -1) return fail('auth_failed', 'the server refused the command as unauthenticated');
      if (packet.id === markerId) return done();
      if (packet.id !== execId || packet.type !== SERVERDATA_RESPONSE_VALUE) return;
      replies++;
      output.append(packet.body);
      if (output.truncated) return done();
      if (markerTimer !== undefined) sendMarker();
      else if (quietTimer !== undefined) quietTimer.refresh();
    };

    socket.on('connect', () => {
      connected = true;
      socket.write(encodePacket(authId, SERVERDATA_AUTH, target.password));
    });
    socket.on('data', (chunk) => {
      let packets: SourcePacket[];
      try {
        packets = reader.push(chunk);
      } catch (error) {
        return fail('protocol', error instanceof Error ? error.message : 'malformed packet');
      }
      for (const packet of packets) {
        if (!settle.open) return;
        onPacket(packet);
      }
    });
    socket.on('error', (error) => {
      if (!connected) settle.reject(connectError(where, error));
      // After connecting, 'close' follows and decides.
    });
    socket.on('close', () => {
      if (stage === 'exec' && replies > 0) return done();
      fail(
        'protocol',
        stage === 'auth' ? 'closed the connection during login' : 'closed the connection before replying',
      );
    });
    return () => {
      clearTimeout(markerTimer);
      clearTimeout(quietTimer);
      socket.destroy();
    };
  });
}

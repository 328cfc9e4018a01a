import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { connectError, RconError } from './errors.js';
import { boundedExchange } from './exchange.js';
import { CappedOutput } from './output.js';
import type { ExchangeLimits, RconResultBody, RconTarget } from './types.js';

/** Connectionless packets start with four 0xff bytes. */
const HEADER = Buffer.from([0xff, 0xff, 0xff, 0xff]);
/** A2C_PRINT: a datagram of console output. */
const PRINT = 0x6c; // 'l'
const CHALLENGE = /^challenge rcon (\d+)/;
const BAD_PASSWORD = 'Bad rcon_password.';

/**
 * GoldSrc (HLDS, cs16) rcon over UDP: `challenge rcon` gets a number, then
 * `rcon <challenge> "<password>" <command>` gets the output as one or more `l` (A2C_PRINT)
 * datagrams. Nothing marks the last one, so the reply ends after `quietMs` without a datagram.
 * A wrong password is answered with the text "Bad rcon_password.".
 */
export function goldsrcCommand(
  target: RconTarget,
  command: string,
  limits: ExchangeLimits,
): Promise<RconResultBody> {
  const where = `GoldSrc rcon at ${target.host}:${target.port}`;
  if (target.password.includes('"')) {
    return Promise.reject(
      new RconError('auth_failed', `${where}: a GoldSrc rcon password cannot contain a double quote`),
    );
  }
  return boundedExchange<RconResultBody>(limits.timeoutMs, where, (settle) => {
    const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
    const output = new CappedOutput(limits.maxOutputBytes);
    let connected = false;
    let challenge: string | undefined;
    let quietTimer: NodeJS.Timeout | undefined;
    let prints = 0;
    const done = () => settle.resolve({ output: output.text(), truncated: output.truncated });
    const fail = (kind: RconError['kind'], message: string) =>
      settle.reject(new RconError(kind, `${where}: ${message}`));
    const send = (text: string) => socket.send(Buffer.concat([HEADER, Buffer.from(text, 'utf8')]));

    socket.on('message', (datagram) => {
      if (datagram.length < 5 || !datagram.subarray(0, 4).equals(HEADER)) {
        return fail('protocol', 'answered with a datagram that is not a GoldSrc packet');
      }
      const payload = datagram.subarray(4);
      if (challenge === undefined) {
        const number = CHALLENGE.exec(payload.toString('latin1'))?.[1];
        if (number === undefined) return fail('protocol', 'did not answer the rcon challenge request');
        challenge = number;
        send(`rcon ${challenge} "${target.password}" ${command}`);
        return;
      }
      if (payload[0] !== PRINT) return;
      const text = stripTrailingNul(payload.subarray(1));
      if (prints++ === 0 && text.toString('latin1').startsWith(BAD_PASSWORD)) {
        return fail('auth_failed', 'the server refused the rcon password');
      }
      output.append(text);
      if (output.truncated) return done();
      if (quietTimer === undefined) quietTimer = setTimeout(done, limits.quietMs);
      else quietTimer.refresh();
    });
    socket.on('error', (error) => {
      // A closed UDP port shows up as ECONNREFUSED (ICMP port unreachable) on a connected socket.
      settle.reject(
        connected && (error as { code?: string }).code !== 'ECONNREFUSED'
          ? new RconError('protocol', `${where}: ${error.message}`)
          : connectError(where, error),
      );
    });
    // A failed look-up of the host calls this back with the error (the typings say no argument);
    // sending on the unconnected socket would then throw outside any handler and stop the process.
    socket.connect(target.port, target.host, ((error?: Error) => {
      if (error) return settle.reject(connectError(where, error));
      connected = true;
      send('challenge rcon\n');
    }) as () => void);
    return () => {
      clearTimeout(quietTimer);
      socket.close();
    };
  });
}

function stripTrailingNul(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

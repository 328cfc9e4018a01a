import { randomInt } from 'node:crypto';
import { isIPv6 } from 'node:net';
import WebSocket from 'ws';
import { connectError, RconError } from './errors.js';
import { boundedExchange } from './exchange.js';
import { CappedOutput } from './output.js';
import type { ExchangeLimits, RconResultBody, RconTarget } from './types.js';

/** Rust's console broadcasts (chat, logs) carry identifiers 0 and -1; ours stays clear of them. */
const newIdentifier = () => randomInt(1000, 2 ** 31 - 1);

/**
 * Facepunch WebRCON (Rust) over WebSocket: the password is the path (ws://host:port/<password>),
 * a command is {Identifier, Message, Name}, and its reply is the message carrying the same
 * Identifier (other messages are console broadcasts and are skipped). A wrong password is a
 * refused upgrade (websocket-sharp answers the unknown path with an HTTP error) or a close right
 * after the upgrade, before any message.
 */
export function webrconCommand(
  target: RconTarget,
  command: string,
  limits: ExchangeLimits,
): Promise<RconResultBody> {
  const where = `WebRCON at ${target.host}:${target.port}`;
  return boundedExchange<RconResultBody>(limits.timeoutMs, where, (settle) => {
    const host = isIPv6(target.host) ? `[${target.host}]` : target.host;
    const identifier = newIdentifier();
    let opened = false;
    let messages = 0;
    const fail = (kind: RconError['kind'], message: string) =>
      settle.reject(new RconError(kind, `${where}: ${message}`));

    const socket = new WebSocket(`ws://${host}:${target.port}/${encodeURIComponent(target.password)}`, {
      handshakeTimeout: limits.timeoutMs,
      perMessageDeflate: false,
      followRedirects: false,
      // JSON escaping can make a reply up to six times its text; beyond that it is not a reply we want.
      maxPayload: Math.max(16 * 1024 * 1024, 8 * limits.maxOutputBytes),
    });
    socket.on('open', () => {
      opened = true;
      socket.send(JSON.stringify({ Identifier: identifier, Message: command, Name: 'WebRcon' }));
    });
    socket.on('message', (data, isBinary) => {
      messages++;
      const reply = isBinary ? undefined : parseReply(rawText(data));
      if (reply === undefined) return fail('protocol', 'sent a message that is not WebRCON JSON');
      if (reply.Identifier !== identifier) return;
      const output = new CappedOutput(limits.maxOutputBytes);
      output.appendText(reply.Message);
      settle.resolve({ output: output.text(), truncated: output.truncated });
    });
    socket.on('unexpected-response', (_request, response) => {
      fail(
        'auth_failed',
        `refused the connection with HTTP ${response.statusCode ?? '?'}: a wrong RCON password`,
      );
    });
    socket.on('error', (error) => {
      if (!opened) settle.reject(connectError(where, error));
      else fail('protocol', error.message);
    });
    socket.on('close', () => {
      if (opened && messages === 0)
        fail('auth_failed', 'closed the connection without answering: a wrong RCON password');
      else fail('protocol', 'closed the connection before replying');
    });
    return () => socket.terminate();
  });
}

interface WebRconReply {
  Identifier: number;
  Message: string;
}

function parseReply(text: string): WebRconReply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { Identifier, Message } = value as Record<string, unknown>;
  if (typeof Identifier !== 'number' || typeof Message !== 'string') return undefined;
  return { Identifier, Message };
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

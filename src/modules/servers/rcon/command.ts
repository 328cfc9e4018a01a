import type { RconProtocol } from './types.js';

/**
 * Source RCON servers read commands into fixed buffers (Minecraft: 1446 bytes of body per
 * packet), so longer commands are refused before sending rather than cut by the server.
 */
export const MAX_COMMAND_BYTES = 1024;

/**
 * Why `command` cannot be sent, or null when it can. A line break or NUL would end the command
 * early in every protocol (GoldSrc and SRCDS split on them, Source bodies end at NUL), letting one
 * request run a second, unaudited command; other control characters have no use in a console line.
 */
export function validateRconCommand(command: string): string | null {
  if (command.trim() === '') return 'the command is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(command)) {
    return 'the command contains a line break, NUL or another control character';
  }
  if (Buffer.byteLength(command, 'utf8') > MAX_COMMAND_BYTES) {
    return `the command is longer than ${MAX_COMMAND_BYTES} bytes`;
  }
  return null;
}

const PROTOCOL_OF_GAME: Readonly<Record<string, RconProtocol>> = {
  cs2: 'source',
  csgo: 'source',
  minecraft: 'source',
  cs16: 'goldsrc',
  rust: 'webrcon',
};

/** The remote-console protocol a game's servers speak, or null for a game without one. */
export function rconProtocolOf(game: string): RconProtocol | null {
  return Object.hasOwn(PROTOCOL_OF_GAME, game) ? (PROTOCOL_OF_GAME[game] ?? null) : null;
}

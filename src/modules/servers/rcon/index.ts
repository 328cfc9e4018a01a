import { performance } from 'node:perf_hooks';
import { validateRconCommand } from './command.js';
import { RconError } from './errors.js';
import { goldsrcCommand } from './goldsrc.js';
import { sourceCommand } from './source.js';
import { webrconCommand } from './webrcon.js';
import type { ExchangeLimits, RconOptions, RconResult, RconResultBody, RconTarget } from './types.js';

export { MAX_COMMAND_BYTES, rconProtocolOf, validateRconCommand } from './command.js';
export { RconError, type RconErrorKind } from './errors.js';
export type { RconOptions, RconProtocol, RconResult, RconTarget } from './types.js';

export const RCON_DEFAULTS: Readonly<ExchangeLimits> = {
  timeoutMs: 5000,
  maxOutputBytes: 65536,
  quietMs: 300,
};

/**
 * Sends one command to a game server over its remote console and returns its output. Opens a
 * fresh connection per command and always closes it. Fails only with RconError: an invalid
 * command is refused before anything is sent (kind `protocol`, see validateRconCommand).
 */
export async function runRconCommand(
  target: RconTarget,
  command: string,
  options: RconOptions = {},
): Promise<RconResult> {
  const invalid = validateRconCommand(command);
  if (invalid !== null) throw new RconError('protocol', invalid);
  const limits: ExchangeLimits = { ...RCON_DEFAULTS, ...definedOnly(options) };
  const started = performance.now();
  const body = await dispatch(target, command, limits);
  return { ...body, durationMs: Math.round(performance.now() - started) };
}

function dispatch(target: RconTarget, command: string, limits: ExchangeLimits): Promise<RconResultBody> {
  switch (target.protocol) {
    case 'source':
      return sourceCommand(target, command, limits);
    case 'goldsrc':
      return goldsrcCommand(target, command, limits);
    case 'webrcon':
      return webrconCommand(target, command, limits);
  }
}

function definedOnly(options: RconOptions): RconOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

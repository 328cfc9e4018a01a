/**
 * Why a remote-console exchange failed. The route maps `timeout` to 504 and the others to 502:
 * - `timeout`: the whole exchange did not finish within its bound (the server is slow or silent);
 * - `unreachable`: no connection (refused, no route, unknown host);
 * - `auth_failed`: the server refused the RCON password;
 * - `protocol`: the server answered, but not in its protocol (garbage, oversized packet, early close).
 */
export type RconErrorKind = 'timeout' | 'unreachable' | 'auth_failed' | 'protocol';

export class RconError extends Error {
  override readonly name = 'RconError';
  constructor(
    readonly kind: RconErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Socket error codes that mean "no connection could be made", as opposed to a failure mid-exchange. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
]);

/** The RconError for a socket error raised while connecting. */
export function connectError(target: string, error: unknown): RconError {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) {
    return new RconError('unreachable', `${target} is unreachable (${code})`, { cause: error });
  }
  return new RconError('unreachable', `${target} is unreachable`, { cause: error });
}

import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../../http/problem.js';
import { sameHash } from '../keys/key-format.js';
import type { ServersRepo } from './repo.js';
import { hashToken, TOKEN_PATTERN } from './tokens.js';

/** The game server an ingest request comes from, as its token says. */
export interface IngestCaller {
  id: number;
  game: string;
  /** the token is the current one (false: the previous one, during a rotation's overlap) */
  currentToken: boolean;
  /** the SHA-256 of the token presented */
  tokenHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    ingestServer?: IngestCaller;
  }
}

const CHALLENGE = { 'www-authenticate': 'Bearer realm="ingest"' };

/**
 * The `onRequest` hook of every ingest route (logs, events, the plugin's heartbeat, commands and
 * token): the server's ingest token from `Authorization: Bearer` (or the path, for senders that
 * cannot set headers) names the server; anything else is `401 invalid_server_token` before the
 * body is read. Looked up on every request, so revocation and the end of an overlap apply at once.
 */
export function ingestAuth(servers: Pick<ServersRepo, 'findByTokenHash'>, now: () => number) {
  return async (request: FastifyRequest): Promise<void> => {
    const fromPath = (request.params as { token?: string }).token;
    const header = request.headers.authorization;
    const token = fromPath ?? (header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined);
    if (!token)
      throw new ProblemError(
        'invalid_server_token',
        'Send the server ingest token as Authorization: Bearer <token>.',
        { headers: CHALLENGE },
      );
    const invalid = new ProblemError(
      'invalid_server_token',
      'The ingest token is not valid or has been revoked.',
      { headers: CHALLENGE },
    );
    if (!TOKEN_PATTERN.test(token)) throw invalid;
    const hash = hashToken(token);
    const server = await servers.findByTokenHash(hash, now());
    if (!server || !sameHash(server.token_hash, hash)) throw invalid;
    request.ingestServer = {
      id: server.id,
      game: server.game,
      currentToken: server.current,
      tokenHash: hash,
    };
  };
}

/** The server an authenticated ingest request comes from (the hook has run). */
export function ingestCaller(request: FastifyRequest): IngestCaller {
  if (!request.ingestServer) throw new ProblemError('invalid_server_token', 'Missing ingest token.');
  return request.ingestServer;
}

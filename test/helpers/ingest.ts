import type { LightMyRequestResponse } from 'fastify';
import type { Db } from '../../src/db/connect.js';
import { serversRepo } from '../../src/modules/servers/repo.js';
import { generateToken, hashToken } from '../../src/modules/servers/tokens.js';
import type { TestContext } from './context.js';

let port = 27015;

/** Registers a game server the way `hub servers add` does; returns its id and the plain token. */
export async function registerServer(
  db: Db,
  game: 'cs2' | 'cs16' | 'rust' | 'minecraft',
  overrides: { ip?: string; port?: number; query_port?: number | null } = {},
): Promise<{ id: number; token: string }> {
  const token = generateToken();
  const record = await serversRepo(db.kysely).add({
    name: `${game} test server ${port}`,
    game,
    ip: overrides.ip ?? '127.0.0.1',
    port: overrides.port ?? port++,
    query_port: overrides.query_port ?? null,
    token_hash: hashToken(token),
    created_at: Date.now(),
  });
  return { id: record.id, token };
}

export const postLogs = (ctx: TestContext, token: string, lines: string[], inPath = false) =>
  ctx.inject({
    method: 'POST',
    url: inPath ? `/api-platform/ingest/logs/${token}` : '/api-platform/ingest/logs',
    headers: { 'content-type': 'text/plain', ...(inPath ? {} : { authorization: `Bearer ${token}` }) },
    payload: lines.join('\n') + '\n',
  });

export const postEvents = (
  ctx: TestContext,
  token: string,
  events: unknown[],
): Promise<LightMyRequestResponse> =>
  ctx.inject({
    method: 'POST',
    url: '/api-platform/ingest/events',
    headers: { authorization: `Bearer ${token}` },
    payload: { events },
  });

/** `L MM/DD/YYYY - HH:MM:SS: ` for an epoch-ms instant (UTC). */
export function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `L ${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} - ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}: `;
}

/**
 * `lines` inside one round of play, followed by the start of the next: kills count once their
 * round is settled, which the next round's start does (see match-state.ts).
 */
export const inRound = (at: number, lines: string[]): string[] => [
  `${stamp(at)}World triggered "Round_Start"`,
  ...lines,
  `${stamp(at)}World triggered "Round_Start"`,
];

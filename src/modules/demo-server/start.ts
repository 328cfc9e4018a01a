import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { Rng } from '../../seed/random.js';
import { INGEST_PREFIX } from '../ingest/routes.js';
import { serversRepo } from '../servers/repo.js';
import { generateToken, hashToken } from '../servers/tokens.js';
import { DemoGame, type MatchSummary } from './game.js';
import { demoServerRepo } from './repo.js';
import { runDemoGame } from './runner.js';

export const DEMO_SERVER_NAME = 'Demo CS2 server';
/** One seed: every start plays the same matches (only the clock differs). */
const SEED = 1;
const SEATS = 10;
/** A moment of play every 400 ms: about two kills a second, a match in 15 to 30 s. */
const STEP_MS = 400;

/**
 * The header the demo server's batches carry, with a value made per process (demoServerMark), so
 * that the access log can leave them out (its lines would bury the newcomer's own) and nobody else
 * can hide a request that way.
 */
const MARK_HEADER = 'x-hub-demo-server';

export function demoServerMark(): {
  header: string;
  value: string;
  marks: (request: FastifyRequest) => boolean;
} {
  const value = randomBytes(16).toString('hex');
  return { header: MARK_HEADER, value, marks: (request) => request.headers[MARK_HEADER] === value };
}

export interface DemoServer {
  id: number;
  players: number;
  stop(): Promise<void>;
}

/**
 * `hub serve --demo`'s game server: a CS2 server registered in the hub (created once, named
 * DEMO_SERVER_NAME, given a fresh ingest token at every start since only hashes are stored) that
 * plays matches among the first SEATS accounts linked to a Steam id, and posts its log to this
 * service's own ingest route over HTTP, the way a real server's `logaddress_add_http` does. Kills,
 * matches, XP, Elo, events and webhooks all come out of the real ingest path.
 * Resolves to why it cannot run when the database has fewer than two such accounts.
 */
export async function startDemoServer(
  db: Kysely<Database>,
  baseUrl: string,
  options: { report: (line: string) => void; mark?: { header: string; value: string }; now?: () => number },
): Promise<DemoServer | { off: string }> {
  const { report, now = Date.now } = options;
  const players = await demoServerRepo(db).playersWithSteamIds(SEATS);
  if (players.length < 2) return { off: 'the database has fewer than two accounts linked to a Steam id' };

  const servers = serversRepo(db);
  const token = generateToken();
  const known = (await servers.list()).find((s) => s.name === DEMO_SERVER_NAME && s.game === 'cs2');
  const id =
    known && (await servers.replaceToken(known.id, hashToken(token)))
      ? known.id
      : (
          await servers.add({
            name: DEMO_SERVER_NAME,
            game: 'cs2',
            ip: '127.0.0.1',
            port: 27015,
            query_port: null,
            token_hash: hashToken(token),
            created_at: now(),
          })
        ).id;

  const ended: MatchSummary[] = [];
  const game = new DemoGame(
    new Rng(SEED),
    players.map((p) => ({ name: p.username, steamId: p.steam_id })),
    (summary) => ended.push(summary),
  );
  const run = runDemoGame({
    game,
    url: `${baseUrl}${INGEST_PREFIX}/logs/${token}`,
    ...(options.mark ? { headers: { [options.mark.header]: options.mark.value } } : {}),
    stepMs: STEP_MS,
    now,
    onFailure: (message) => report(`Demo server: a log batch was not taken (${message}); it plays on`),
    // told once the batch holding `Game Over` is answered, so the totals include it
    afterPost: (totals) => {
      for (const m of ended.splice(0))
        report(
          `Demo server: match ${m.number} on ${m.map} ended ${m.ct}:${m.t} (${m.kills} kills, ${m.headshots} headshots, ${m.chat} chat lines); ` +
            `so far the hub took ${totals.accepted} log lines (${totals.rejected} refused), counted ${totals.kills} kills, rated ${totals.matches} ${totals.matches === 1 ? 'match' : 'matches'}`,
        );
    },
  });
  return { id, players: players.length, stop: () => run.stop() };
}

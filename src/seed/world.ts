import { COUNTERS, type Counter } from '../engines/achievements.js';
import { GAMES, type GameDef } from './games.js';
import { steamId, usernames } from './names.js';
import type { Rng } from './random.js';
import { serverName } from './text.js';

export const DAY = 86_400_000;

/**
 * The in-memory demo world every generator shares. Players are indexes 0..n-1 (user id = index + 1);
 * per-player numbers live in typed arrays so 100k players cost a few megabytes.
 */
export interface World {
  rng: Rng;
  now: number;
  userCount: number;
  names: string[];
  steamIds: string[];
  joinedAt: Float64Array;
  /** per game code: player indexes who play it, most active first */
  pools: Map<string, Int32Array>;
  /** per game code: ids of its servers */
  serversByGame: Map<string, number[]>;
  servers: ServerRow[];
  counters: Record<Counter, Int32Array>;
}

export interface ServerRow {
  id: number;
  name: string;
  game: string;
  ip: string;
  port: number;
  query_port: number;
  status: 'online' | 'offline';
  players: number;
  max_players: number;
  map: string;
  region: string;
  created_at: number;
}

/** Regions the demo servers are spread over, in turn. */
const SEED_REGIONS = ['eu-west', 'na-east', 'eu-central', 'na-west', 'asia-east', 'sa-east'] as const;

/** How likely a player is to play each game (every player plays at least one). */
const PLAYS: Record<GameDef['code'], number> = { cs2: 0.6, cs16: 0.35, rust: 0.35, minecraft: 0.3 };

export function createWorld(rng: Rng, userCount: number, now: number): World {
  const names = usernames(rng, userCount);
  const steamIds: string[] = new Array<string>(userCount);
  const joinedAt = new Float64Array(userCount);
  const members = new Map<string, number[]>(GAMES.map((g) => [g.code, []]));
  for (let i = 0; i < userCount; i++) {
    steamIds[i] = steamId(rng, i);
    // everyone joined before the 90 days of activity, within the last ~2.5 years
    joinedAt[i] = now - rng.int(91, 900) * DAY - rng.int(0, DAY - 1);
    let plays = 0;
    for (const game of GAMES) {
      // the first players play everything, so every pool has players even for tiny worlds
      if (i < 10 || rng.chance(PLAYS[game.code])) {
        members.get(game.code)?.push(i);
        plays++;
      }
    }
    if (plays === 0) members.get('cs2')?.push(i);
  }
  const pools = new Map<string, Int32Array>();
  for (const [code, list] of members) {
    // shuffled: the position in the pool is the player's activity rank in that game
    const order = rng.sample(list.length, list.length);
    pools.set(
      code,
      Int32Array.from(order, (j) => list[j] ?? 0),
    );
  }
  const servers = createServers(rng, userCount, now);
  const serversByGame = new Map<string, number[]>();
  for (const s of servers) serversByGame.set(s.game, [...(serversByGame.get(s.game) ?? []), s.id]);
  const counters = Object.fromEntries(COUNTERS.map((c) => [c, new Int32Array(userCount)])) as Record<
    Counter,
    Int32Array
  >;
  return { rng, now, userCount, names, steamIds, joinedAt, pools, serversByGame, servers, counters };
}

/** Online and offline servers for every game; more online ones for bigger worlds. */
function createServers(rng: Rng, userCount: number, now: number): ServerRow[] {
  const servers: ServerRow[] = [];
  const extra = Math.min(20, Math.floor(userCount / 5000));
  for (const [g, game] of GAMES.entries()) {
    const online = (game.code === 'minecraft' ? 2 : 3) + extra;
    const offline = game.code === 'cs2' ? 2 : 1;
    for (let n = 1; n <= online + offline; n++) {
      const status = n <= online ? 'online' : 'offline';
      const max = rng.pick(game.maxPlayers);
      const port = game.serverPort + (n - 1) * 10;
      servers.push({
        id: servers.length + 1,
        name: serverName(rng, game, n),
        game: game.code,
        // documentation address ranges (RFC 5737): realistic, and never someone's real server
        ip: `${g % 2 === 0 ? '203.0.113' : '198.51.100'}.${10 + servers.length}`,
        port,
        query_port: game.code === 'rust' ? port + 1 : port,
        status,
        players: status === 'online' ? rng.int(0, max) : 0,
        max_players: max,
        map: rng.pick(game.maps),
        region: SEED_REGIONS[servers.length % SEED_REGIONS.length] ?? 'unassigned',
        created_at: now - rng.int(100, 700) * DAY,
      });
    }
  }
  return servers;
}

/** A player index from `pool`, skewed so the first (most active) players are picked far more often. */
export function activePlayer(rng: Rng, pool: Int32Array): number {
  const u = rng.next();
  return pool[Math.floor(pool.length * u * u)] ?? 0;
}

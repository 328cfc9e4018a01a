import { GAMES } from './games.js';
import type { SeedRepo } from './repo.js';
import { FORUM_CATEGORIES, postContent, threadTitle, tournamentName } from './text.js';
import { activePlayer, DAY, type World } from './world.js';

/** Categories 2..5 are about one game each (same order as GAMES); the others are general. */
const categoryGame = (categoryIndex: number) => GAMES[categoryIndex - 1] ?? GAMES[0];

type Thread = [id: number, category: number, author: number, title: string, views: number, createdAt: number];
type Post = [thread: number, author: number, content: string, createdAt: number];
type Tournament = [
  id: number,
  name: string,
  game: string,
  status: string,
  maxTeams: number,
  startsAt: number,
];

export interface Community {
  threads: Thread[];
  posts: Post[];
  tournaments: Tournament[];
  participants: [tournament: number, user: number][];
}

/** Minimum thread and post counts that fill the default forum pages (25). */
const PAGE = 25;

/**
 * Plans the forum and tournaments in memory (their counters feed XP and achievements, which must be
 * known before users are written). The first 25 threads go to the first category so one category
 * page is always full, and every 6th thread runs to 25+ posts so post pages fill too.
 */
export function planCommunity(world: World): Community {
  const { rng, now, joinedAt, counters } = world;
  const everyone = Int32Array.from({ length: world.userCount }, (_, i) => i);
  const threadCount = Math.min(5000, Math.max(100, Math.floor(world.userCount / 20)));
  const threads: Thread[] = [];
  const posts: Post[] = [];
  for (let t = 0; t < threadCount; t++) {
    const category = t < PAGE ? 0 : rng.weighted([30, 20, 12, 14, 8, 8, 4, 4]);
    const game = categoryGame(category) ?? GAMES[0];
    if (!game) break;
    const author = activePlayer(rng, everyone);
    const joined = joinedAt[author] ?? now;
    const createdAt = Math.floor(joined + (now - joined) * (0.5 + 0.5 * rng.next()));
    const replies = t % 6 === 0 ? rng.int(PAGE, 60) : rng.int(0, 14);
    const id = t + 1;
    let at = createdAt;
    posts.push([id, author + 1, postContent(rng, game), at]);
    counters.forum_posts[author] = (counters.forum_posts[author] ?? 0) + 1;
    for (let r = 0; r < replies; r++) {
      const replier = activePlayer(rng, everyone);
      at = Math.min(
        now,
        Math.max(at, joinedAt[replier] ?? at) + rng.int(60_000, (now - createdAt) / (replies + 1) + 60_000),
      );
      posts.push([id, replier + 1, postContent(rng, game), at]);
      counters.forum_posts[replier] = (counters.forum_posts[replier] ?? 0) + 1;
    }
    threads.push([
      id,
      category + 1,
      author + 1,
      threadTitle(rng, game),
      (replies + 1) * rng.int(5, 40) + rng.int(0, 200),
      createdAt,
    ]);
  }

  const tournamentCount = Math.min(40, 12 + Math.floor(world.userCount / 5000));
  const tournaments: Tournament[] = [];
  const participants: [number, number][] = [];
  const year = new Date(now).getUTCFullYear();
  for (let i = 0; i < tournamentCount; i++) {
    const game = GAMES[i % GAMES.length];
    if (!game) break;
    // cycling guarantees every state exists once there are three tournaments
    const status = (['completed', 'active', 'upcoming'] as const)[i % 3] ?? 'completed';
    const startsAt =
      status === 'completed'
        ? now - rng.int(7, 80) * DAY
        : status === 'active'
          ? now - rng.int(1, 47) * 3_600_000
          : now + rng.int(1, 45) * DAY;
    const maxTeams = rng.pick([8, 16, 32]);
    const id = i + 1;
    tournaments.push([id, tournamentName(rng, game, year, id), game.code, status, maxTeams, startsAt]);
    const pool = world.pools.get(game.code) ?? new Int32Array(0);
    const teamSize = game.code === 'rust' ? 3 : game.code === 'minecraft' ? 1 : 5;
    const teams = status === 'upcoming' ? rng.int(Math.ceil(maxTeams / 2), maxTeams) : maxTeams;
    const size = Math.min(pool.length, teams * teamSize);
    for (const j of rng.sample(pool.length, size)) {
      const p = pool[j] ?? 0;
      participants.push([id, p + 1]);
      counters.tournaments_played[p] = (counters.tournaments_played[p] ?? 0) + 1;
    }
  }
  return { threads, posts, tournaments, participants };
}

/** Writes the planned forum and tournaments (after the users they reference exist). */
export async function insertCommunity(repo: SeedRepo, community: Community): Promise<void> {
  await repo.inTransaction(async (trx) => {
    await repo
      .writer(trx, 'forum_categories', ['id', 'name'])
      .pushAll(FORUM_CATEGORIES.map((name, i) => [i + 1, name]));
    await repo
      .writer(trx, 'forum_threads', ['id', 'category_id', 'author_id', 'title', 'views', 'created_at'])
      .pushAll(community.threads);
    await repo
      .writer(trx, 'forum_posts', ['thread_id', 'author_id', 'content', 'created_at'])
      .pushAll(community.posts);
    await repo
      .writer(trx, 'tournaments', ['id', 'name', 'game', 'status', 'max_teams', 'starts_at'])
      .pushAll(community.tournaments);
    await repo
      .writer(trx, 'tournament_participants', ['tournament_id', 'user_id'])
      .pushAll(community.participants);
  });
}

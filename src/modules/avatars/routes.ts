import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../../http/problem.js';
import { matchesIfNoneMatch } from '../../http/response-cache.js';
import { identiconPng } from './identicon.js';

/**
 * Avatars live at the service root, beside the API, as the `avatar` paths have always been
 * published: a client resolves `/avatars/42.png` against the origin it calls the API on.
 */
export const AVATARS_PREFIX = '/avatars';

/** The path every response gives as a user's `avatar`. */
export const avatarPath = (userId: number): string => `${AVATARS_PREFIX}/${userId}.png`;

/** Bumped whenever the picture for an id changes, so validators held by caches change with it. */
const GENERATION = 1;
const MAX_USER_ID = 2_147_483_647;
/** A week: long enough that a list of players costs no requests, short enough to see a new style. */
const CACHE_CONTROL = 'public, max-age=604800';

/** Recently served avatars (under 200 bytes each); generating one costs up to a millisecond of CPU. */
class AvatarCache {
  private readonly entries = new Map<number, Buffer>();
  constructor(private readonly max: number) {}

  get(userId: number): Buffer {
    let png = this.entries.get(userId);
    if (png) {
      // Map keeps insertion order: re-inserting makes it the most recently used.
      this.entries.delete(userId);
    } else {
      png = identiconPng(userId);
      if (this.entries.size >= this.max) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
    }
    this.entries.set(userId, png);
    return png;
  }
}

/**
 * `GET /avatars/<user id>.png`: a generated identicon, public, no key. Every id in the user id
 * range has one, whether or not such a user exists (a picture derived from a number tells nothing,
 * and answering without the database keeps the route free); anything else is a 404 problem.
 */
export function avatarRoutes(options: { cacheEntries?: number } = {}) {
  const cache = new AvatarCache(options.cacheEntries ?? 4096);
  return (app: FastifyInstance): void => {
    app.get<{ Params: { file: string } }>(
      `${AVATARS_PREFIX}/:file`,
      { schema: { hide: true } },
      (request, reply) => {
        const digits = /^([1-9]\d{0,9})\.png$/.exec(request.params.file)?.[1];
        const userId = Number(digits);
        if (digits === undefined || userId > MAX_USER_ID) {
          throw new ProblemError('not_found', 'Avatars are at /avatars/<user id>.png.');
        }
        const etag = `"avatar-${GENERATION}-${userId}"`;
        // Meant to be shown by other sites (bots, dashboards): embeddable from any origin.
        void reply
          .header('cache-control', CACHE_CONTROL)
          .header('etag', etag)
          .header('cross-origin-resource-policy', 'cross-origin');
        if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
        return reply.type('image/png').send(cache.get(userId));
      },
    );
  };
}

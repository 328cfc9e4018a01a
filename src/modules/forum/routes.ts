import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { publicRead } from '../../http/public-route.js';
import { Envelope, IdParam, Limit, Offset, Timestamp, toIso } from '../../http/schemas.js';
import type { ForumRepo } from './repo.js';

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 50;

export const ForumThreadSchema = Type.Object(
  {
    id: Type.Integer({ description: 'thread ID', examples: [128] }),
    title: Type.String({ examples: ['Best crosshair settings for CS2?'] }),
    author: Type.String({ description: 'username of the thread starter', examples: ['NovaStrike'] }),
    views: Type.Integer({ minimum: 0, examples: [312] }),
    created_at: Timestamp('when the thread was started'),
  },
  { $id: 'ForumThread', title: 'ForumThread' },
);

export const ForumPostSchema = Type.Object(
  {
    id: Type.Integer({ description: 'post ID', examples: [4051] }),
    author: Type.String({ description: 'username of the poster', examples: ['ByteRider'] }),
    content: Type.String({ examples: ['cl_crosshairsize 2 and gap -3 works for me.'] }),
    created_at: Timestamp('when the post was written'),
  },
  { $id: 'ForumPost', title: 'ForumPost' },
);

const page = {
  limit: Type.Optional(Limit(DEFAULT_LIMIT, MAX_LIMIT)),
  offset: Type.Optional(Offset()),
};

export const ThreadsQuery = Type.Object({
  category_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'Only threads of this forum category; omit it for threads of every category.',
      examples: [2],
    }),
  ),
  ...page,
});
export const PostsQuery = Type.Object(page);

export const ThreadsResponse = Envelope(
  'threads',
  Type.Array(Type.Ref('ForumThread')),
  'Recent forum threads',
);
export const PostsResponse = Envelope('posts', Type.Array(Type.Ref('ForumPost')), 'Posts of a thread');
export type ThreadsBody = { threads: Static<typeof ForumThreadSchema>[] };
export type PostsBody = { posts: Static<typeof ForumPostSchema>[] };

export function forumRoutes(repo: ForumRepo) {
  return (app: App): void => {
    app.addSchema(ForumThreadSchema);
    app.addSchema(ForumPostSchema);

    app.get(
      '/forum/threads',
      publicRead({
        operationId: 'forum_threads_list',
        tag: 'Forum',
        summary: 'List recent forum threads',
        description:
          'Forum threads, most recent first (`created_at` descending, then id descending), paged with `limit` and `offset`. `category_id` keeps one category; a category without threads, or one that does not exist, gives an empty list (not 404), like any filter that matches nothing.',
        querystring: ThreadsQuery,
        response: ThreadsResponse,
      }),
      async (request): Promise<ThreadsBody> => {
        const { category_id, limit = DEFAULT_LIMIT, offset = 0 } = request.query;
        const rows = await repo.listThreads(category_id === undefined ? {} : { categoryId: category_id }, {
          limit,
          offset,
        });
        return {
          threads: rows.map((row) => ({
            id: row.id,
            title: row.title,
            author: row.author,
            views: row.views,
            created_at: toIso(row.created_at),
          })),
        };
      },
    );

    app.get(
      '/forum/threads/:id/posts',
      publicRead({
        operationId: 'forum_threads_posts_list',
        tag: 'Forum',
        summary: 'List the posts of a thread',
        description:
          'The posts of one thread in reading order (`created_at` ascending, then id ascending), paged with `limit` and `offset`. An unknown thread is 404 `thread_not_found`; a page past the last post of an existing thread is an empty list.',
        params: IdParam('Thread'),
        querystring: PostsQuery,
        response: PostsResponse,
        errors: ['thread_not_found'],
      }),
      async (request): Promise<PostsBody> => {
        const { id } = request.params;
        const { limit = DEFAULT_LIMIT, offset = 0 } = request.query;
        const rows = await repo.listPosts(id, { limit, offset });
        // Only an empty page can mean "no such thread", so the common case stays one query.
        if (rows.length === 0 && !(await repo.threadExists(id))) {
          throw new ProblemError('thread_not_found', `There is no forum thread with id ${id}.`);
        }
        return {
          posts: rows.map((row) => ({
            id: row.id,
            author: row.author,
            content: row.content,
            created_at: toIso(row.created_at),
          })),
        };
      },
    );
  };
}

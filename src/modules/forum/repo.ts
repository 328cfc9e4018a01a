import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';

export interface ThreadRow {
  id: number;
  title: string;
  author: string;
  views: number;
  created_at: number;
}

export interface PostRow {
  id: number;
  author: string;
  content: string;
  created_at: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export function forumRepo(db: Kysely<Database>) {
  return {
    /**
     * Most recent threads first, with the author's username joined in the same query. With a
     * category it walks `forum_threads_category`, without one `forum_threads_recent`.
     */
    listThreads(filter: { categoryId?: number }, page: Page): Promise<ThreadRow[]> {
      let query = db
        .selectFrom('forum_threads as t')
        .innerJoin('users as u', 'u.id', 't.author_id')
        .select(['t.id', 't.title', 'u.username as author', 't.views', 't.created_at']);
      if (filter.categoryId !== undefined) query = query.where('t.category_id', '=', filter.categoryId);
      return query
        .orderBy('t.created_at', 'desc')
        .orderBy('t.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    /** A thread's posts in reading order (index `forum_posts_thread`: thread_id, created_at, id). */
    listPosts(threadId: number, page: Page): Promise<PostRow[]> {
      return db
        .selectFrom('forum_posts as p')
        .innerJoin('users as u', 'u.id', 'p.author_id')
        .select(['p.id', 'u.username as author', 'p.content', 'p.created_at'])
        .where('p.thread_id', '=', threadId)
        .orderBy('p.created_at', 'asc')
        .orderBy('p.id', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    async threadExists(id: number): Promise<boolean> {
      const row = await db.selectFrom('forum_threads').select('id').where('id', '=', id).executeTakeFirst();
      return row !== undefined;
    },
  };
}

export type ForumRepo = ReturnType<typeof forumRepo>;

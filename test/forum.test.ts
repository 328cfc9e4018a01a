import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Problem } from '../src/http/problem.js';
import type { PostsBody, ThreadsBody } from '../src/modules/forum/routes.js';
import type { UserStatsBody } from '../src/modules/users/routes.js';
import { contentFactories, type ContentFactories } from './helpers/content-factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { expectInvalidParameter } from './helpers/expect-problem.js';
import type { MadeUser } from './helpers/factories.js';

type Thread = Awaited<ReturnType<ContentFactories['makeThread']>>;
type Post = Awaited<ReturnType<ContentFactories['makePost']>>;

const MAY = Date.UTC(2026, 4, 1);
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

for (const dialect of testDialects()) {
  describe(`forum (${dialect})`, () => {
    let ctx: TestContext;
    let content: ContentFactories;
    let alice: MadeUser;
    let bob: MadeUser;
    let carol: MadeUser;
    let general: number;
    let rust: number;
    let empty: number;
    /** 30 threads in General, created in May at minutes that are a permutation of 0..29 */
    const generalThreads: Thread[] = [];
    let raid: Thread;
    let news: Thread;
    let tie: Thread;
    /** a thread whose posts were inserted out of time order */
    let shuffled: Thread;
    const shuffledPosts: Post[] = [];
    /** a thread with 30 posts */
    let long: Thread;
    const longPosts: Post[] = [];
    let silent: Thread;

    const authorName = (id: number) => [alice, bob, carol].find((u) => u.id === id)?.username;
    const threadView = (t: Thread) => ({
      id: t.id,
      title: t.title,
      author: authorName(t.author_id),
      views: t.views,
      created_at: iso(t.created_at),
    });
    const postView = (p: Post) => ({
      id: p.id,
      author: authorName(p.author_id),
      content: p.content,
      created_at: iso(p.created_at),
    });
    const threads = async (query = '') => {
      const res = await ctx.get(`/forum/threads${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<ThreadsBody>(res).threads;
    };
    const posts = async (threadId: number, query = '') => {
      const res = await ctx.get(`/forum/threads/${threadId}/posts${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<PostsBody>(res).posts;
    };
    /** General's threads, most recent first, worked out from the permutation. */
    const generalRecentFirst = () => [...generalThreads].sort((a, b) => b.created_at - a.created_at);

    before(async () => {
      ctx = await createTestContext(dialect);
      content = contentFactories(ctx.testDb.db);
      alice = await ctx.makeUser({ username: 'alice' });
      bob = await ctx.makeUser({ username: 'bob' });
      carol = await ctx.makeUser({ username: 'carol' });
      general = (await content.makeCategory('General')).id;
      rust = (await content.makeCategory('Rust')).id;
      empty = (await content.makeCategory('Empty')).id;
      for (let i = 1; i <= 30; i++) {
        generalThreads.push(
          await content.makeThread({
            category_id: general,
            author_id: [alice, bob, carol][i % 3]?.id ?? alice.id,
            title: `General ${i}`,
            views: i * 3,
            // 7 is coprime with 30, so these minutes are distinct and not in id order
            created_at: MAY + ((i * 7) % 30) * 60_000,
          }),
        );
      }
      raid = await content.makeThread({
        category_id: rust,
        author_id: bob.id,
        title: 'Base raid tips',
        views: 5,
        created_at: at('2026-06-10T10:00:00.000Z'),
      });
      news = await content.makeThread({
        category_id: rust,
        author_id: carol.id,
        title: 'Wipe day schedule',
        views: 0,
        created_at: at('2026-06-12T08:00:00.000Z'),
      });
      tie = await content.makeThread({
        category_id: rust,
        author_id: alice.id,
        title: 'Same minute as the raid thread',
        views: 999,
        created_at: at('2026-06-10T10:00:00.000Z'),
      });

      shuffled = generalThreads[0] ?? raid;
      for (const [author, text, when] of [
        [alice, 'second by time, first by id', '2026-05-02T10:05:00.000Z'],
        [bob, 'first by time', '2026-05-02T10:00:00.000Z'],
        [carol, 'same time as the first insert', '2026-05-02T10:05:00.000Z'],
        [bob, 'one minute in', '2026-05-02T10:01:00.000Z'],
      ] as const) {
        shuffledPosts.push(
          await content.makePost({
            thread_id: shuffled.id,
            author_id: author.id,
            content: text,
            created_at: at(when),
          }),
        );
      }
      long = generalThreads[1] ?? raid;
      for (let i = 0; i < 30; i++) {
        longPosts.push(
          await content.makePost({
            thread_id: long.id,
            author_id: carol.id,
            content: `reply ${i}`,
            created_at: MAY + 86_400_000 + i * 1000,
          }),
        );
      }
      silent = generalThreads[2] ?? raid;
    });
    after(() => ctx.close());

    describe('GET /forum/threads', () => {
      it('lists a category most recent first, ties by higher id, with exactly the documented fields', async () => {
        const res = await ctx.get(`/forum/threads?category_id=${rust}`);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(json<ThreadsBody>(res), {
          threads: [
            {
              id: news.id,
              title: 'Wipe day schedule',
              author: 'carol',
              views: 0,
              created_at: '2026-06-12T08:00:00.000Z',
            },
            {
              id: tie.id,
              title: 'Same minute as the raid thread',
              author: 'alice',
              views: 999,
              created_at: '2026-06-10T10:00:00.000Z',
            },
            {
              id: raid.id,
              title: 'Base raid tips',
              author: 'bob',
              views: 5,
              created_at: '2026-06-10T10:00:00.000Z',
            },
          ],
        });
      });

      it('returns a default page of 25 of the 30 threads of a category, most recent first', async () => {
        const page = await threads(`?category_id=${general}`);
        assert.equal(page.length, 25);
        // minute 29 is thread 17 (17·7 = 119 ≡ 29 mod 30), minute 28 is thread 4 (28 ≡ 4·7 mod 30)
        assert.deepEqual(page[0], {
          id: generalThreads[16]?.id,
          title: 'General 17',
          author: 'carol',
          views: 51,
          created_at: '2026-05-01T00:29:00.000Z',
        });
        assert.equal(page[1]?.title, 'General 4');
        assert.deepEqual(page, generalRecentFirst().slice(0, 25).map(threadView));
      });

      it('without a category lists every category together, most recent first', async () => {
        const page = await threads();
        assert.equal(page.length, 25);
        assert.deepEqual(page, [news, tie, raid, ...generalRecentFirst()].slice(0, 25).map(threadView));
        const all = await threads('?limit=50');
        assert.equal(all.length, 33);
        assert.deepEqual(all, [news, tie, raid, ...generalRecentFirst()].map(threadView));
      });

      it('gives an empty list for a category without threads and for an unknown category', async () => {
        assert.deepEqual(await threads(`?category_id=${empty}`), []);
        assert.deepEqual(await threads('?category_id=999999'), []);
      });

      it('pages consistently with limit and offset', async () => {
        const ten = await threads(`?category_id=${general}&limit=10&offset=0`);
        const first = await threads(`?category_id=${general}&limit=5&offset=0`);
        const second = await threads(`?category_id=${general}&limit=5&offset=5`);
        assert.equal(ten.length, 10);
        assert.deepEqual(ten, [...first, ...second]);
        assert.deepEqual(await threads(`?category_id=${general}&limit=1`), ten.slice(0, 1));
        assert.deepEqual(
          await threads(`?category_id=${general}&limit=50`),
          generalRecentFirst().map(threadView),
        );
        assert.deepEqual(
          await threads(`?category_id=${general}&offset=25`),
          generalRecentFirst().slice(25).map(threadView),
        );
        assert.deepEqual(await threads(`?category_id=${general}&offset=30`), []);
        assert.deepEqual(
          await threads(`?category_id=${general}&limit=25&offset=0`),
          await threads(`?category_id=${general}`),
        );
      });

      it('rejects out-of-range or malformed limit, offset and category_id', async () => {
        for (const bad of ['0', '51', '-1', 'abc', '1.5', '']) {
          await expectInvalidParameter(
            ctx,
            `/forum/threads?limit=${bad}`,
            'limit',
            'an integer from 1 to 50',
          );
        }
        for (const bad of ['-1', 'abc', '1.5', '1000001', '0x5', '5e0']) {
          await expectInvalidParameter(
            ctx,
            `/forum/threads?offset=${bad}`,
            'offset',
            'an integer from 0 to 1000000',
          );
        }
        for (const bad of ['0', '-1', 'abc', '1.5', '2147483648']) {
          await expectInvalidParameter(
            ctx,
            `/forum/threads?category_id=${bad}`,
            'category_id',
            'an integer from 1 to 2147483647',
          );
        }
      });
    });

    describe('GET /forum/threads/{id}/posts', () => {
      it('lists posts in thread order (time, then lower id), with exactly the documented fields', async () => {
        const res = await ctx.get(`/forum/threads/${shuffled.id}/posts`);
        assert.equal(res.statusCode, 200);
        const [p1, p2, p3, p4] = shuffledPosts;
        assert.ok(p1 && p2 && p3 && p4);
        assert.deepEqual(json<PostsBody>(res), {
          posts: [
            { id: p2.id, author: 'bob', content: 'first by time', created_at: '2026-05-02T10:00:00.000Z' },
            { id: p4.id, author: 'bob', content: 'one minute in', created_at: '2026-05-02T10:01:00.000Z' },
            {
              id: p1.id,
              author: 'alice',
              content: 'second by time, first by id',
              created_at: '2026-05-02T10:05:00.000Z',
            },
            {
              id: p3.id,
              author: 'carol',
              content: 'same time as the first insert',
              created_at: '2026-05-02T10:05:00.000Z',
            },
          ],
        });
      });

      it('returns a default page of 25 of 30 posts, and pages consistently', async () => {
        assert.deepEqual(await posts(long.id), longPosts.slice(0, 25).map(postView));
        assert.deepEqual(await posts(long.id, '?offset=25'), longPosts.slice(25).map(postView));
        assert.deepEqual(await posts(long.id, '?limit=50'), longPosts.map(postView));
        assert.deepEqual(await posts(long.id, '?limit=1'), longPosts.slice(0, 1).map(postView));
        const ten = await posts(long.id, '?limit=10&offset=0');
        assert.deepEqual(ten, [
          ...(await posts(long.id, '?limit=5&offset=0')),
          ...(await posts(long.id, '?limit=5&offset=5')),
        ]);
        assert.deepEqual(ten, longPosts.slice(0, 10).map(postView));
      });

      it('gives an empty list for an existing thread without posts or past its last post', async () => {
        assert.deepEqual(await posts(silent.id), []);
        assert.deepEqual(await posts(long.id, '?offset=30'), []);
        assert.deepEqual(await posts(long.id, '?offset=1000000'), []);
      });

      it('answers 404 thread_not_found for an unknown thread', async () => {
        const res = await ctx.get('/forum/threads/999999/posts');
        assert.equal(res.statusCode, 404);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const problem = json<Problem>(res);
        assert.deepEqual(problem, {
          type: '/api-platform/problems/thread_not_found',
          title: 'Thread not found',
          status: 404,
          detail: 'There is no forum thread with id 999999.',
          instance: res.headers['x-request-id'],
          code: 'thread_not_found',
        });
        // an offset past the end of an unknown thread is still 404, not an empty page
        assert.equal((await ctx.get('/forum/threads/999999/posts?offset=10')).statusCode, 404);
      });

      it('rejects malformed ids and out-of-range limit and offset', async () => {
        for (const bad of ['0', '-1', 'abc', '1.5', '2147483648']) {
          const res = await ctx.get(`/forum/threads/${bad}/posts`);
          assert.equal(res.statusCode, 400, bad);
          const problem = json<Problem>(res);
          assert.equal(problem.code, 'invalid_parameter');
          assert.deepEqual(problem.errors?.[0]?.in, 'path');
          assert.equal(problem.errors[0].name, 'id');
          assert.ok(problem.detail.includes("'id' must be an integer from 1 to 2147483647"), problem.detail);
        }
        for (const bad of ['0', '51', '-1', 'abc', '1.5']) {
          await expectInvalidParameter(
            ctx,
            `/forum/threads/${long.id}/posts?limit=${bad}`,
            'limit',
            'an integer from 1 to 50',
          );
        }
        for (const bad of ['-1', 'abc', '1.5']) {
          await expectInvalidParameter(
            ctx,
            `/forum/threads/${long.id}/posts?offset=${bad}`,
            'offset',
            'an integer from 0 to 1000000',
          );
        }
      });
    });

    it('user stats count a user’s forum posts', async () => {
      const stats = async (id: number) =>
        json<UserStatsBody>(await ctx.get(`/users/${id}/stats`)).stats.forum_posts;
      // alice 1 (shuffled thread); bob 2; carol 1 + 30 in the long thread
      assert.equal(await stats(alice.id), 1);
      assert.equal(await stats(bob.id), 2);
      assert.equal(await stats(carol.id), 31);
      await content.makePost({ thread_id: silent.id, author_id: alice.id });
      assert.equal(await stats(alice.id), 2);
      assert.equal((await posts(silent.id)).length, 1);
    });
  });
}

import type { PathsWithMethod } from 'openapi-typescript-helpers';
import { PAGING } from './generated/metadata.js';
import type { paths } from './generated/schema.js';

/** GET paths that page (limit/offset, page/per_page or the event cursor). */
export type PagedPath = PathsWithMethod<paths, 'get'>;

/** The item type of a list answer: `data[]` on /v1, the one array of a published list. */
export type ItemOf<T> = T extends { data: readonly (infer U)[] }
  ? U
  : { [K in keyof T]-?: T[K] extends readonly (infer U)[] ? U : never }[keyof T];

type Query = Record<string, unknown>;
type Page = Record<string, unknown>;

/** The single array of a published list answer (`threads`, `posts`…), or `data`. */
function itemsOf(page: Page): unknown[] {
  if (Array.isArray(page.data)) return page.data;
  const arrays = Object.values(page).filter((v): v is unknown[] => Array.isArray(v));
  if (arrays.length !== 1) throw new TypeError('this answer is not a list');
  return arrays[0] ?? [];
}

export async function* paginate(
  path: string,
  init: { params?: { query?: Query } },
  fetchPage: (query: Query) => Promise<unknown>,
): AsyncGenerator {
  const mode = PAGING[`GET ${path}`];
  const query: Query = { ...init.params?.query };
  if (mode === undefined) {
    // a list answered in one piece (a top-N): its items
    yield* itemsOf((await fetchPage(query)) as Page);
    return;
  }
  switch (mode) {
    case 'offset': {
      let offset = typeof query.offset === 'number' ? query.offset : 0;
      for (;;) {
        const items = itemsOf((await fetchPage({ ...query, offset })) as Page);
        yield* items;
        // a short page is the last; an explicit limit tells its size, else the first page does
        const size = typeof query.limit === 'number' ? query.limit : undefined;
        if (items.length === 0 || (size !== undefined && items.length < size)) return;
        query.limit ??= items.length;
        offset += items.length;
      }
    }
    case 'page': {
      let page = typeof query.page === 'number' ? query.page : 1;
      for (;;) {
        const answer = (await fetchPage({ ...query, page })) as {
          data: unknown[];
          meta: { total: number; per_page: number };
        };
        yield* answer.data;
        if (answer.data.length === 0 || page * answer.meta.per_page >= answer.meta.total) return;
        page++;
      }
    }
    case 'cursor': {
      let after = query.after;
      for (;;) {
        const answer = (await fetchPage({ ...query, ...(after === undefined ? {} : { after }) })) as {
          data: unknown[];
          meta: { next_after: string | null; has_more: boolean };
        };
        yield* answer.data;
        if (!answer.meta.has_more || answer.meta.next_after === null) return;
        after = answer.meta.next_after;
      }
    }
  }
}

import { v1Tag } from './docs/description.js';
import { Type, type TSchema } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { errorResponses, type ErrorCode } from './problem.js';
import { defaultsOptional } from './public-route.js';
import { API_KEY_SCOPES, type Scope } from './scopes.js';

/** Errors every /v1 operation can return, whatever it does. */
const COMMON_ERRORS: ErrorCode[] = [
  'missing_token',
  'invalid_token',
  'rate_limited',
  'internal_error',
  // only when the operator chose RATE_LIMIT_STORE_FAILURE=closed and Redis is unreachable
  'service_unavailable',
];

/** Paging of every /v1 list: `page` from 1, `per_page` 1-100, default 25 (DESIGN.md). */
export const PageQuery = {
  page: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 1,
    description: 'Page number, from 1 (default 1).',
    examples: [1],
  }),
  per_page: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 25,
    description: 'Items per page, 1-100 (default 25).',
    examples: [25],
  }),
};

export interface PageParams {
  page: number;
  per_page: number;
}

/** `limit`/`offset` of the requested page, for a repository query. */
export const pageWindow = ({ page, per_page }: PageParams) => ({
  limit: per_page,
  offset: (page - 1) * per_page,
});

const PageMeta = Type.Object(
  {
    total: Type.Integer({ minimum: 0, description: 'Items across all pages', examples: [42] }),
    page: Type.Integer({ minimum: 1, description: 'This page', examples: [1] }),
    per_page: Type.Integer({ minimum: 1, maximum: 100, description: 'Page size', examples: [25] }),
  },
  { description: 'Where this page sits in the whole list' },
);

/** A /v1 list body: `{ data: [...], meta: { total, page, per_page } }`. */
export const ListOf = <S extends TSchema>(item: S, description: string) =>
  Type.Object({ data: Type.Array(item), meta: PageMeta }, { description });

/** A /v1 single-record body: `{ data: {...} }`. */
export const One = <S extends TSchema>(record: S, description: string) =>
  Type.Object({ data: record }, { description });

/** The body of one page of a list. */
export const listBody = <T>(data: T[], total: number, { page, per_page }: PageParams) => ({
  data,
  meta: { total, page, per_page },
});

export interface V1RouteSpec<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends TSchema,
> {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** the scope an OAuth token needs (API keys hold the public read scopes of `API_KEY_SCOPES`) */
  scope?: Scope;
  /** acts for a signed-in user: an API key or an app-only token is refused */
  userContext?: boolean;
  /**
   * public data the same for every caller: served from the response cache (keyed by URL) with an
   * ETag and `304`s; never on a user-context route, whose answer depends on the user
   */
  cache?: boolean;
  /** state-changing routes: `Idempotency-Key` accepted ('optional') or required */
  idempotency?: 'required' | 'optional';
  /** the handler stores the key's answer in its own transaction (src/http/idempotency.ts) */
  idempotencyInTransaction?: boolean;
  /**
   * fields of the answer's `data` that hold a secret shown once: never stored with the answer, so a
   * replay (`Idempotent-Replayed: true`) carries `null` in their place (src/http/idempotency.ts)
   */
  withheldOnReplay?: readonly string[];
  params?: P;
  querystring?: Q;
  body?: B;
  response: R;
  /** success status (200 by default; 201 for creations, 204 for deletions) */
  status?: 200 | 201 | 202 | 204;
  /** errors beyond the common ones (invalid_parameter, invalid_body, scope and idempotency errors are added) */
  errors?: ErrorCode[];
}

/**
 * Route options for a /v1 operation: bearer credential, the scope declared and enforced by the
 * pipeline, quota counted per credential, idempotency when it changes state, and every error it
 * can return listed in its schema.
 */
export function v1Route<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends TSchema,
>(spec: V1RouteSpec<P, Q, B, R>) {
  if (spec.cache && (spec.userContext || spec.idempotency))
    throw new Error(`${spec.operationId}: only public reads may be cached`);
  if (spec.withheldOnReplay && !spec.idempotency)
    throw new Error(`${spec.operationId}: withheldOnReplay is for routes that take an Idempotency-Key`);
  const hasParameters = spec.params !== undefined || spec.querystring !== undefined;
  const errors: ErrorCode[] = [
    ...(hasParameters || spec.idempotency ? (['invalid_parameter'] as const) : []),
    ...(spec.body ? (['invalid_body'] as const) : []),
    ...(spec.scope || spec.userContext ? (['insufficient_scope'] as const) : []),
    ...(spec.userContext ? (['user_context_required'] as const) : []),
    ...(spec.idempotency ? (['idempotency_key_in_use', 'idempotency_key_reused'] as const) : []),
    ...(spec.errors ?? []),
    ...COMMON_ERRORS,
  ];
  const apiKeyAllowed = !spec.userContext && (spec.scope === undefined || API_KEY_SCOPES.has(spec.scope));
  const security: Record<string, string[]>[] = [
    { oauth2: spec.scope ? [spec.scope] : [] },
    ...(apiKeyAllowed ? [{ bearer: [] }] : []),
  ];
  const schema = {
    operationId: spec.operationId,
    tags: [v1Tag(spec.tag)],
    summary: spec.summary,
    description: spec.description,
    security,
    params: spec.params as P,
    querystring: defaultsOptional(spec.querystring) as Q,
    body: spec.body as B,
    response: { [spec.status ?? 200]: spec.response, ...errorResponses(...new Set(errors)) },
  };
  // Fastify warns about explicitly undefined schema parts, so absent ones are removed.
  const present = Object.fromEntries(
    Object.entries(schema).filter(([, v]) => v !== undefined),
  ) as typeof schema;
  return {
    schema: present,
    config: {
      auth: 'bearer' as const,
      ...(spec.scope ? { scope: spec.scope } : {}),
      ...(spec.userContext ? { userContext: true } : {}),
      ...(spec.cache ? { cache: true } : {}),
      ...(spec.idempotency ? { idempotency: spec.idempotency } : {}),
      ...(spec.idempotency && spec.idempotencyInTransaction ? { idempotencyInTransaction: true } : {}),
      ...(spec.withheldOnReplay ? { withheldOnReplay: spec.withheldOnReplay } : {}),
    },
  };
}

/**
 * The hub user a user-context route acts for. The pipeline has already refused other
 * credentials (`user_context_required`), so a missing user here is a wiring mistake, not input.
 */
export function actingUserId(request: FastifyRequest): number {
  const userId = request.principal?.userId;
  if (userId === null || userId === undefined) throw new Error('a user-context route ran without a user');
  return userId;
}

/** The hub user behind the credential, if any (null for an API key or an app-only token). */
export const viewerId = (request: FastifyRequest): number | null => request.principal?.userId ?? null;

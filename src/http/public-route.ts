import type { TSchema } from 'typebox';
import { errorResponses, type ErrorCode } from './problem.js';

/** Errors every key-protected, cached read can return, whatever its parameters. */
const COMMON_ERRORS: ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'rate_limited',
  'internal_error',
  // only when the operator chose RATE_LIMIT_STORE_FAILURE=closed and Redis is unreachable
  'service_unavailable',
];

interface PublicRouteSpec<P extends TSchema | undefined, Q extends TSchema | undefined, R extends TSchema> {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  params?: P;
  querystring?: Q;
  response: R;
  /** errors beyond the common ones (invalid_parameter is added when the route has parameters) */
  errors?: ErrorCode[];
}

/**
 * A query parameter with a default is optional to clients (the SPEC: "query parameters are all
 * optional"); validation fills the default in, so handlers still see it. TypeBox lists every
 * non-Optional property as required, which OpenAPI would publish as a required parameter.
 */
export function defaultsOptional(
  schema: { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined,
) {
  const properties = schema?.properties;
  if (!schema || !properties || !schema.required) return schema;
  return { ...schema, required: schema.required.filter((name) => properties[name]?.default === undefined) };
}

/**
 * Route options for a published read: API key required, quota counted, response cached with ETag,
 * and every error it can return listed in its schema.
 */
export function publicRead<P extends TSchema | undefined, Q extends TSchema | undefined, R extends TSchema>(
  spec: PublicRouteSpec<P, Q, R>,
) {
  const hasParameters = spec.params !== undefined || spec.querystring !== undefined;
  const errors: ErrorCode[] = [
    ...(hasParameters ? (['invalid_parameter'] as const) : []),
    ...(spec.errors ?? []),
    ...COMMON_ERRORS,
  ];
  const schema = {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    security: [{ apiKey: [] }],
    params: spec.params as P,
    querystring: defaultsOptional(spec.querystring) as Q,
    response: { 200: spec.response, ...errorResponses(...errors) },
  };
  // Fastify warns about explicitly undefined schema parts, so absent ones are removed.
  const present = Object.fromEntries(
    Object.entries(schema).filter(([, v]) => v !== undefined),
  ) as typeof schema;
  return { schema: present, config: { auth: 'apiKey' as const, cache: true } };
}

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import Router, { type HTTPMethod } from 'find-my-way';
import {
  ERRORS,
  ProblemError,
  problemBody,
  ProblemSchema,
  type ErrorCode,
  type InvalidParam,
} from './problem.js';
import { SECRET_NAME } from './secrets.js';

type ValidationError = NonNullable<FastifyError['validation']>[number] & {
  parentSchema?: Record<string, unknown>;
  data?: unknown;
};

const CONTEXT_TO_LOCATION = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
} as const;

/** "an integer from 1 to 100", "one of: week, month, all" — the allowed values of a parameter. */
export function describeAllowed(schema: Record<string, unknown> | undefined): string | undefined {
  if (!schema) return undefined;
  const values =
    schema.enum ??
    (Array.isArray(schema.anyOf) ? schema.anyOf.map((s: { const?: unknown }) => s.const) : undefined);
  if (Array.isArray(values)) return `one of: ${values.map(String).join(', ')}`;
  if (schema.type === 'integer' || schema.type === 'number') {
    const noun = schema.type === 'integer' ? 'an integer' : 'a number';
    const { minimum: min, maximum: max } = schema as { minimum?: number; maximum?: number };
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} of at least ${min}`;
    if (max !== undefined) return `${noun} of at most ${max}`;
    return noun;
  }
  if (schema.type === 'string') {
    const { minLength, maxLength, pattern, description } = schema as Record<
      string,
      string | number | undefined
    >;
    if (pattern && typeof description === 'string') return description;
    if (minLength !== undefined && maxLength !== undefined)
      return `a string of ${minLength} to ${maxLength} characters`;
    if (maxLength !== undefined) return `a string of at most ${maxLength} characters`;
  }
  return undefined;
}

/** Longer values are described by their length: every key, token and session id is longer. */
const MAX_ECHO = 24;

/**
 * " (got …)" after a reason: the offending value when it is short and not a secret's field (a
 * too-long password must not come back in the answer; schemas mark such fields `writeOnly`), or
 * else only its length, so a key pasted into the wrong parameter is not repeated either.
 */
function echoed(name: string, schema: Record<string, unknown> | undefined, value: unknown): string {
  if (value === undefined || schema?.writeOnly === true || SECRET_NAME.test(name)) return '';
  const text = JSON.stringify(value);
  if (text.length <= MAX_ECHO && !text.includes('ghk_')) return ` (got ${text})`;
  return typeof value === 'string' ? ` (got ${value.length} characters)` : '';
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * "must be a string (3-32 characters: …)": a value of the wrong JSON type is told the type the
 * schema expects first, then what else it says ("must be an integer from 1 to 100" says both).
 */
function wrongType(v: ValidationError, allowed: string | undefined): string {
  // Ajv names the expected types joined by commas ("string,null")
  const expected = ((v.params as { type?: string }).type ?? '')
    .split(',')
    .map((type) => TYPE_NOUNS[type] ?? type)
    .join(' or ');
  if (allowed === undefined) return `must be ${expected}`;
  return allowed.startsWith(expected) ? `must be ${allowed}` : `must be ${expected} (${allowed})`;
}

function invalidParams(error: FastifyError): InvalidParam[] {
  const location = CONTEXT_TO_LOCATION[error.validationContext ?? 'body'];
  const all = error.validation as ValidationError[];
  // A failed anyOf/oneOf also reports why each of its branches failed ("must be equal to constant"
  // once per literal); the union's own error, worded by describeAllowed, is the one to keep.
  const unions = all
    .filter((v) => v.keyword === 'anyOf' || v.keyword === 'oneOf')
    .map((v) => `${v.schemaPath}/`);
  const errors = all.filter((v) => !unions.some((prefix) => v.schemaPath.startsWith(prefix)));
  return errors.map((v) => {
    const missing =
      v.keyword === 'required' ? (v.params as { missingProperty?: string }).missingProperty : undefined;
    const name = missing ?? (v.instancePath.replace(/^\//, '').replace(/\//g, '.') || location);
    if (missing) return { in: location, name, reason: 'is required' };
    if (v.keyword === 'additionalProperties') {
      const extra = (v.params as { additionalProperty?: string }).additionalProperty ?? '';
      const at = v.instancePath === '' ? '' : `${name}.`;
      return { in: location, name: `${at}${extra}` || name, reason: 'is not allowed here' };
    }
    const allowed = describeAllowed(v.parentSchema);
    const got = echoed(name, v.parentSchema, v.data);
    if (v.keyword === 'type') return { in: location, name, reason: `${wrongType(v, allowed)}${got}` };
    const reason = allowed ? `must be ${allowed}${got}` : `${v.message ?? 'is invalid'}${got}`;
    return { in: location, name, reason };
  });
}

/**
 * Fastify's own 4xx errors (schema validation is handled on its own): a malformed URL, or else a
 * body it could not read (bad JSON, wrong content type, too large). 400 is ambiguous in ERRORS, so
 * it is named here rather than looked up.
 */
function codeForFastifyError(error: FastifyError, status: number): ErrorCode {
  if (error.code === 'FST_ERR_BAD_URL') return 'invalid_parameter';
  if (status === 400) return 'invalid_body';
  const match = (Object.keys(ERRORS) as ErrorCode[]).find((code) => ERRORS[code].status === status);
  return match ?? 'invalid_body';
}

export function sendProblem(
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extras: { headers?: Record<string, string>; invalidParams?: InvalidParam[] } = {},
): FastifyReply {
  const body = problemBody(code, detail, reply.request.id, extras.invalidParams);
  if (extras.headers) reply.headers(extras.headers);
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}

/**
 * One error handler for the whole service: every error leaves as RFC 9457 problem+json, unknown
 * routes are 404, known paths with the wrong method are 405 with `Allow`, and a 500 never carries
 * the internal message.
 */
export const errorsPlugin = fp(
  (app: FastifyInstance) => {
    app.addSchema(ProblemSchema);
    app.decorateRequest('routePattern', undefined);

    // A shadow router of every registered route, to tell 405 from 404.
    const routes = Router();
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (method === 'HEAD') continue;
        try {
          routes.on(method.toUpperCase() as HTTPMethod, route.url, () => undefined, { pattern: route.url });
        } catch {
          // the same method/path twice (HEAD twins) is fine
        }
      }
    });

    app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '/';
      const matches = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].flatMap((method) => {
        const found = routes.find(method as HTTPMethod, path);
        return found ? [{ method, pattern: (found.store as { pattern: string }).pattern }] : [];
      });
      const pattern = matches[0]?.pattern;
      if (pattern !== undefined) {
        // The access log names the route by its pattern: the path may carry a secret (an ingest
        // token in /logs/{token}); the answer goes to the caller who sent it.
        request.routePattern = pattern;
        // named by its pattern (`/logs/{token}`): the path itself may hold a secret (an ingest token)
        const named = pattern.replace(/:(\w+)/g, '{$1}');
        return sendProblem(reply, 'method_not_allowed', `${request.method} is not allowed on ${named}`, {
          headers: { allow: matches.map((m) => m.method).join(', ') },
        });
      }
      return sendProblem(reply, 'not_found', `No route matches ${request.method} ${path}`);
    });

    app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
      if (error instanceof ProblemError) {
        return sendProblem(reply, error.code, error.detail, error.extras);
      }
      if (error.validation) {
        const params = invalidParams(error);
        const context = error.validationContext;
        const code: ErrorCode = context === 'body' ? 'invalid_body' : 'invalid_parameter';
        const detail = params.map((p) => `${p.in} parameter '${p.name}' ${p.reason}`).join('; ');
        return sendProblem(reply, code, detail, { invalidParams: params });
      }
      const status = error.statusCode ?? 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'unhandled error');
        return sendProblem(
          reply,
          status === 503 ? 'service_unavailable' : 'internal_error',
          'The server could not complete the request; it has been logged.',
        );
      }
      // Fastify's own 4xx errors (bad JSON, wrong content type, body too large) carry safe messages;
      // one may quote a header (the content type), so it is cut short.
      const detail = error.message.length > 200 ? `${error.message.slice(0, 200)}…` : error.message;
      return sendProblem(reply, codeForFastifyError(error, status), detail);
    });
  },
  { name: 'errors' },
);

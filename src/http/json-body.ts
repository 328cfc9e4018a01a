import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from './problem.js';

/** Arrays and objects inside each other; no body of the service needs more than a handful. */
export const DEFAULT_MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether a JSON text nests arrays and objects more than `limit` deep, found in one pass over the
 * characters (string contents skipped) before any parsing work. Malformed text is left to the parser.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** `\u0000` in a JSON text (any case): the only way a JSON string can carry U+0000. */
const ESCAPED_NUL = /\\u0000/i;

/**
 * Where in a parsed body a string or a key holds U+0000, as a JSON pointer (`/events/3/name`), or
 * undefined. Only bodies whose text spells `\u0000` are walked.
 */
export function nulPointer(value: unknown, at = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at || '/' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key.includes('\u0000')) return here;
    const found = nulPointer(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * JSON bodies: limited in size by the route's `bodyLimit` (refused from `Content-Length` before
 * reading) and in depth by its `config.maxJsonDepth` (default 32) before they are parsed, so a
 * body of 5,000 nested brackets is a 400 problem rather than a stack overflow in a later step.
 * Parsing itself is Fastify's (prototype poisoning refused). A string holding U+0000 is refused
 * (400, naming where): no text the service keeps may hold one (PostgreSQL's text cannot, and a name
 * or description cut short at it would mislead whoever reads it), the same on both databases.
 */
export const jsonBodyPlugin = fp(
  (app: FastifyInstance) => {
    const parse = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body as string;
      const limit = request.routeOptions.config.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
      if (nestedDeeperThan(text, limit)) {
        done(
          new ProblemError(
            'invalid_body',
            `The JSON body nests arrays and objects more than ${limit} levels deep.`,
          ),
          undefined,
        );
        return;
      }
      if (!ESCAPED_NUL.test(text)) {
        void parse(request, text, done);
        return;
      }
      void parse(request, text, (err, value) => {
        const where = err ? undefined : nulPointer(value);
        if (where === undefined) done(err, value);
        else
          done(
            new ProblemError(
              'invalid_body',
              `The JSON body holds U+0000 (a NUL character) at ${where}: no text here may contain one.`,
            ),
            undefined,
          );
      });
    });
  },
  { name: 'json-body' },
);

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

/**
 * JSON bodies: limited in size by the route's `bodyLimit` (refused from `Content-Length` before
 * reading) and in depth by its `config.maxJsonDepth` (default 32) before they are parsed, so a
 * body of 5,000 nested brackets is a 400 problem rather than a stack overflow in a later step.
 * Parsing itself is Fastify's (prototype poisoning refused).
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
      void parse(request, text, done);
    });
  },
  { name: 'json-body' },
);

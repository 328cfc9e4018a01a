import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { StepsOff } from './pipeline-switches.js';
import { ProblemError } from './problem.js';

/**
 * Sent with every response, errors and answers written straight to the socket included. HTML
 * pages add their own `Content-Security-Policy` with `frame-ancestors 'none'`; the portal and the
 * OAuth sign-in pages widen the referrer policy to `same-origin` for their own forms (privatePages).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};
const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/** How many `Host` headers the client sent (Node keeps only the first in `headers`). */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name?.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/**
 * What every request gets before routing: its id echoed in `x-request-id`, the security headers,
 * and a 400 unless it carries exactly one `Host` (RFC 9112 §3.2: a server must refuse two, since a
 * proxy in front may have read the other one). One hook, so the hot path pays for one call.
 */
export const requestBasicsPlugin = fp<{ stepsOff: StepsOff }>(
  (app: FastifyInstance, { stepsOff }) => {
    const requestId = !stepsOff.has('requestId');
    const securityHeaders = stepsOff.has('securityHeaders') ? [] : SECURITY_HEADER_ENTRIES;
    app.addHook('onRequest', (request, reply, done) => {
      if (requestId) reply.header('x-request-id', request.id);
      for (const [name, value] of securityHeaders) reply.header(name, value);
      const hosts = hostHeaders(request.raw.rawHeaders);
      if (hosts > 1 || (hosts === 0 && request.raw.httpVersion === '1.1')) {
        reply.header('connection', 'close');
        done(
          new ProblemError(
            'bad_request',
            `The request has ${hosts} Host headers; HTTP/1.1 requires exactly one (RFC 9112 section 3.2).`,
          ),
        );
        return;
      }
      done();
    });
  },
  { name: 'request-basics' },
);

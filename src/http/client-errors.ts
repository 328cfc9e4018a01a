import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from './errors.js';
import { ERRORS, problemBody, type ErrorCode } from './problem.js';
import { SECURITY_HEADERS } from './request-basics.js';
import { nextRequestId } from './request-id.js';

/** The longest path segment the router matches; longer ones are 414 before any route runs. */
export const MAX_PARAM_LENGTH = 256;
/** Node's default limit on the request line and headers together. */
export const MAX_HEADER_BYTES = 16 * 1024;

export interface RequestTimeouts {
  /** the request line and headers must arrive within this time */
  headersMs: number;
  /** the whole request, body included, within this time */
  requestMs: number;
}

export const DEFAULT_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, requestMs: 30_000 };

/**
 * Errors Fastify's router raises before any route or hook runs: a path that is not valid
 * percent-encoding, and a path segment longer than MAX_PARAM_LENGTH. The path is not repeated in the
 * answer: it may hold a secret (an ingest token).
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).headers(SECURITY_HEADERS);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendProblem(reply, 'uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`);
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    void sendProblem(
      reply,
      'invalid_parameter',
      'The path is not valid percent-encoding: a % must be followed by two hexadecimal digits of UTF-8.',
    );
    return;
  }
  request.log.error({ err: error }, 'router error');
  void sendProblem(reply, 'internal_error', 'The server could not complete the request; it has been logged.');
}

type ClientError = Error & { code?: string; reason?: string };

function classify(error: ClientError, timeouts: RequestTimeouts): { code: ErrorCode; detail: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      code: 'request_timeout',
      detail: `The request was not received in time: headers must arrive within ${timeouts.headersMs / 1000} s and the whole request within ${timeouts.requestMs / 1000} s.`,
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      code: 'headers_too_large',
      detail: `The request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KiB.`,
    };
  }
  // llhttp's reasons are fixed phrases ("Invalid header value char"), never request bytes
  const reason = typeof error.reason === 'string' ? `: ${error.reason}` : '';
  return { code: 'bad_request', detail: `The request is not valid HTTP/1.1 and cannot be read${reason}.` };
}

/** A complete HTTP/1.1 problem response, for a socket that has no request object to answer through. */
export function rawProblemResponse(code: ErrorCode, detail: string, requestId: string): string {
  const body = JSON.stringify(problemBody(code, detail, requestId));
  const { status } = ERRORS[code];
  const headers = {
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
    ...SECURITY_HEADERS,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`;
}

/**
 * Node's HTTP parser errors and request timeouts (headers too large, malformed requests, a body
 * that stops arriving) answered as problem+json with `Connection: close`, then the socket closed.
 * Nothing is written when a response has already begun on the socket (it would corrupt it).
 */
export function clientErrorHandler(timeouts: RequestTimeouts, log: FastifyBaseLogger) {
  return function onClientError(error: ClientError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { code, detail } = classify(error, timeouts);
      const requestId = nextRequestId();
      socket.write(rawProblemResponse(code, detail, requestId));
      log.info({ reqId: requestId, status: ERRORS[code].status, error: error.code }, 'client error');
    }
    socket.destroy();
  };
}

/** Fastify options for the limits above (timeouts, header and path sizes) and their problem answers. */
export function clientLimitOptions(timeouts: RequestTimeouts, log: FastifyBaseLogger) {
  return {
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node's own refusal of a request without Host is a bare 400; request-basics.ts words it
      requireHostHeader: false,
      // Node checks for late requests on this interval (30 s by default), which would let a slow
      // body run up to twice its time
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersMs / 4))),
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(timeouts, log),
  };
}

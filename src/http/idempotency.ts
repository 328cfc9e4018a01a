import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { SendStep } from './pipeline-steps.js';
import { ProblemError } from './problem.js';
import type { Principal } from './request-context.js';

/**
 * Writes that are safe to retry (DESIGN.md): a state-changing /v1 route declares
 * `config.idempotency` ('required' or 'optional'). The first request with a given
 * `Idempotency-Key` claims it for its credential owner; its response (2xx or 4xx) is stored for
 * 24 hours and replayed byte for byte, with `Idempotent-Replayed: true`, to every retry with the
 * same body. The same key with another body is 422 `idempotency_key_reused`; a retry while the
 * first request is still running is 409 `idempotency_key_in_use`. A 5xx releases the key, so the
 * retry runs again.
 *
 * A secret shown once (a webhook's signing secret) is never stored: a route lists such fields of
 * its `data` in `config.withheldOnReplay`, and they are stored, and so replayed, as `null`.
 *
 * The stored response is written after the handler's own transaction commits. An effect that
 * must happen at most once even if the process dies between the two (a transfer of coins)
 * records `request.idempotency.key` in its own transaction as well, and the handler answers a
 * repeat from that record.
 *
 * A route declaring `config.idempotencyInTransaction` (a hot write: coin transfers) goes further:
 * the pipeline only reads the key (a stored answer is replayed, a request still running is 409),
 * claims nothing, and the handler writes the key with its answer inside its own transaction
 * (`storeAnswers`), setting `request.idempotency.stored`: one transaction per request instead of
 * three. An answer the handler did not store (a 4xx, a repeat it answered from its own record)
 * is stored after the send; a 5xx leaves nothing to release. Two such requests racing with one
 * key both reach the handler, whose own record makes the second answer with the first's effect.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export type IdempotencyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; fingerprint: string; response: StoredResponse }
  | { outcome: 'in_flight'; fingerprint: string };

/** Where keys and responses live: the database, shared by every instance. */
export interface IdempotencyStore {
  /** Claims (owner, key) for a request, or says what holds it (an answer to replay, a request running). */
  claim(owner: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim>;
  complete(owner: string, key: string, response: StoredResponse, now: number): Promise<void>;
  /** Gives an unanswered claim back (the request failed with a 5xx). */
  release(owner: string, key: string): Promise<void>;
  /** What holds (owner, key), read without writing anything; undefined when nothing (live) does. */
  find(owner: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim | undefined>;
  /** Stores the answer of (owner, key) unless one is stored already (in-transaction routes). */
  remember(
    owner: string,
    key: string,
    fingerprint: string,
    response: StoredResponse,
    now: number,
  ): Promise<void>;
}

export interface IdempotencyState {
  owner: string;
  key: string;
  /** what identifies the request (method, URL, body): stored with its answer */
  fingerprint: string;
  /** the answer came from the store: nothing to record */
  replayed: boolean;
  /** the route stores its answer in its own transaction (`config.idempotencyInTransaction`) */
  inTransaction: boolean;
  /** set by such a handler once its transaction stored the answer: nothing left to record */
  stored?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** state-changing /v1 routes: whether `Idempotency-Key` must be sent or may be */
    idempotency?: 'required' | 'optional';
    /** the handler writes the key and its answer in its own transaction (see above) */
    idempotencyInTransaction?: boolean;
    /** fields of the answer's `data` (secrets shown once) stored, and so replayed, as `null` */
    withheldOnReplay?: readonly string[];
  }
  interface FastifyRequest {
    idempotency?: IdempotencyState;
  }
}

/** Keys are scoped to the credential: an API key, or an OAuth app acting for one user. */
export function idempotencyOwner(principal: Principal): string {
  return principal.keyId !== null
    ? `key:${principal.keyId}`
    : `app:${principal.appId ?? 0}:${principal.userId ?? 0}`;
}

function fingerprintOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

const headerProblem = (reason: string) =>
  new ProblemError('invalid_parameter', `header parameter 'Idempotency-Key' ${reason}`, {
    invalidParams: [{ in: 'header', name: 'Idempotency-Key', reason }],
  });

const CLAIMED: IdempotencyClaim = { outcome: 'claimed' };

/** preHandler step (after authentication and validation, so the body is known). */
export function claimIdempotencyKey(
  store: IdempotencyStore,
  mode: 'required' | 'optional',
  now: () => number,
  inTransaction = false,
): preHandlerAsyncHookHandler {
  return async function claimKey(request: FastifyRequest, reply: FastifyReply) {
    // A body its schema refused (a route that words that refusal itself, `attachValidation`) is
    // answered as on every other route, where validation comes first: no key read, none stored.
    if (request.validationError) return;
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (Array.isArray(header)) throw headerProblem('must be sent once');
    if (header === undefined) {
      if (mode === 'required')
        throw headerProblem('is required: a unique value per operation, reused on retries');
      return;
    }
    if (!KEY_PATTERN.test(header)) throw headerProblem('must be 1 to 255 printable ASCII characters');
    if (!request.principal) throw new Error('idempotency needs an authenticated principal');
    const owner = idempotencyOwner(request.principal);
    const fingerprint = fingerprintOf(request);
    const claim = inTransaction
      ? ((await store.find(owner, header, fingerprint, now())) ?? CLAIMED)
      : await store.claim(owner, header, fingerprint, now());
    if (claim.outcome === 'claimed') {
      request.idempotency = { owner, key: header, fingerprint, replayed: false, inTransaction };
      return;
    }
    if (claim.fingerprint !== fingerprint) {
      throw new ProblemError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new operation.',
      );
    }
    if (claim.outcome === 'in_flight') {
      throw new ProblemError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; retry after it has finished.',
        { headers: { 'retry-after': '1' } },
      );
    }
    request.idempotency = { owner, key: header, fingerprint, replayed: true, inTransaction };
    const { status, contentType, body } = claim.response;
    reply.code(status).header(REPLAYED_HEADER, 'true');
    if (body !== '') reply.header('content-type', contentType);
    return reply.send(body);
  };
}

/** onSend step: stores the first answer to replay (2xx and 4xx), or releases the key on a 5xx. */
export function recordIdempotentResponse(store: IdempotencyStore, now: () => number): SendStep {
  return async function recordResponse(request, reply, payload) {
    const state = request.idempotency;
    if (!state || state.replayed || state.stored) return payload;
    // `reply.send()` without a body (a 204) arrives as undefined: an empty answer, still stored
    const body =
      payload === undefined || payload === null
        ? ''
        : typeof payload === 'string'
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString('utf8')
            : null;
    if (reply.statusCode >= 500 || body === null) {
      // an in-transaction route claimed nothing: nothing to give back
      if (!state.inTransaction) await store.release(state.owner, state.key);
      return payload;
    }
    const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
    const withheld = request.routeOptions.config.withheldOnReplay;
    const stored = withheld && reply.statusCode < 300 ? withhold(body, withheld) : body;
    const response = { status: reply.statusCode, contentType, body: stored };
    if (state.inTransaction) await store.remember(state.owner, state.key, state.fingerprint, response, now());
    else await store.complete(state.owner, state.key, response, now());
    return payload;
  };
}

/** The JSON answer `{ data: {...} }` with these fields of `data` set to null. */
function withhold(body: string, fields: readonly string[]): string {
  const answer = JSON.parse(body) as { data?: Record<string, unknown> };
  if (!answer.data || typeof answer.data !== 'object') return body;
  for (const field of fields) if (field in answer.data) answer.data[field] = null;
  return JSON.stringify(answer);
}

import type { FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';

/**
 * A pipeline step runs synchronously when it can (memory quota store, SQLite key lookup) and
 * returns a promise only when it must wait (Redis, PostgreSQL): a cache hit then costs no promise
 * and no microtask at all.
 */
export type MaybePromise<T> = T | Promise<T>;

export const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** A route option that holds one hook or several, as a list. */
export const asArray = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** Applies `next` to a value now, or once it resolves. */
export const andThen = <T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
): MaybePromise<R> => (isPromise(value) ? value.then(next) : next(value));

type HookDone = Parameters<onRequestHookHandler>[2];
type SendDone = Parameters<onSendHookHandler>[3];

/** What an onRequest step returns: `ANSWERED` once it has sent the reply, which ends the sequence. */
export const ANSWERED = true;
export const CONTINUE = false;
export type RequestStep = (request: FastifyRequest, reply: FastifyReply) => MaybePromise<boolean>;

/** An onSend step: takes the payload and returns the payload to send. */
export type SendStep = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
) => MaybePromise<unknown>;

// The runners below are module functions rather than closures made per request: a hit allocates
// nothing for the sequencing itself.

function runRequestSteps(
  steps: readonly RequestStep[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookDone,
): void {
  for (let i = from; i < steps.length; i++) {
    let result: MaybePromise<boolean>;
    try {
      result = (steps[i] as RequestStep)(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (isPromise(result)) {
      result.then((answered) => {
        if (!answered) runRequestSteps(steps, i + 1, request, reply, done);
      }, done);
      return;
    }
    if (result) return;
  }
  done();
}

/**
 * Runs onRequest steps in order as one callback-style hook. A step that answered ends the sequence
 * without calling `done` (Fastify's contract for replying from a callback hook); a thrown error or
 * a rejected promise goes to the error handler.
 */
export function requestSequence(steps: readonly RequestStep[]): onRequestHookHandler {
  return function runSteps(request, reply, done) {
    runRequestSteps(steps, 0, request, reply, done);
  };
}

function runSendSteps(
  steps: readonly SendStep[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: SendDone,
): void {
  let value = payload;
  for (let i = from; i < steps.length; i++) {
    let result: MaybePromise<unknown>;
    try {
      result = (steps[i] as SendStep)(request, reply, value);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (isPromise(result)) {
      result.then((next) => runSendSteps(steps, i + 1, request, reply, next, done), done);
      return;
    }
    value = result;
  }
  done(null, value);
}

/** Runs onSend steps in order as one callback-style hook, each one getting the previous payload. */
export function sendSequence(steps: readonly SendStep[]): onSendHookHandler {
  return function runSteps(request, reply, payload, done) {
    runSendSteps(steps, 0, request, reply, payload, done);
  };
}

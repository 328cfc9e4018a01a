import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { SendStep } from '../../http/pipeline-steps.js';
import type { UsageRecorder } from './recorder.js';

export interface UsagePluginOptions {
  recorder: UsageRecorder;
  /** how often the buffer is written (ms) */
  flushEveryMs: number;
}

/**
 * The pipeline's last onSend step: counts every key-authenticated response (429s and errors
 * included) by its final status. Counting as the response leaves, rather than in an onResponse
 * hook, spares every request the 'finish' listeners such a hook needs.
 */
export function recordUsageStep(recorder: UsageRecorder, now: () => number): SendStep {
  return function recordUsage(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    if (request.apiKey) recorder.record(request.apiKey.id, now(), reply.statusCode);
    return payload;
  };
}

/** Flushes the recorder's counts periodically and on close. */
export const usagePlugin = fp<UsagePluginOptions>(
  (app: FastifyInstance, { recorder, flushEveryMs }) => {
    const timer = setInterval(() => {
      recorder.flush().catch((err: unknown) => app.log.error({ err }, 'usage flush failed; will retry'));
    }, flushEveryMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      // the last chance to write them: a failure is logged, and the rest of the shutdown goes on
      await recorder
        .flush()
        .catch((err: unknown) => app.log.error({ err }, 'usage flush at shutdown failed'));
    });
  },
  { name: 'usage' },
);

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { UsageRecorder } from './recorder.js';

export interface UsagePluginOptions {
  recorder: UsageRecorder;
  now: () => number;
  /** how often the buffer is written (ms) */
  flushEveryMs: number;
}

/** Counts every key-authenticated response (429s and errors included) and flushes periodically. */
export const usagePlugin = fp<UsagePluginOptions>(
  (app: FastifyInstance, { recorder, now, flushEveryMs }) => {
    // callback style: counting is synchronous, so no promise per request
    app.addHook('onResponse', (request, reply, done) => {
      if (request.apiKey) recorder.record(request.apiKey.id, now(), reply.statusCode);
      done();
    });
    const timer = setInterval(() => {
      recorder.flush().catch((err: unknown) => app.log.error({ err }, 'usage flush failed; will retry'));
    }, flushEveryMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await recorder.flush();
    });
  },
  { name: 'usage' },
);

import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/** What a test reads of an answer: status, headers, body. */
export type Answer = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body' | 'json'>;

/**
 * `inject()` for tests that call every route: a live event stream (text/event-stream) never
 * ends, so the answer is read as a stream; a stream's status and headers are what such tests
 * check, and it is dropped at once (its body reads as empty). Any other answer is read whole.
 */
export async function injectAnswer(
  app: Pick<FastifyInstance, 'inject'>,
  options: InjectOptions,
): Promise<Answer> {
  const res = await app.inject({ ...options, payloadAsStream: true });
  const stream = res.stream();
  const chunks: Buffer[] = [];
  if (String(res.headers['content-type']).startsWith('text/event-stream')) stream.destroy();
  else for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  const body = Buffer.concat(chunks).toString('utf8');
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body,
    json: <T>() => JSON.parse(body) as T,
  };
}

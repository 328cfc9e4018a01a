import Fastify from 'fastify';
import { loadBodies } from './lib/bodies.js';

/**
 * Bare Fastify (no logger, no hooks) sending the hub's bodies byte for byte, by path (the file named
 * by the first argument): what the framework itself costs over raw node:http. A child process of
 * bench/pipeline.ts; sends its URL to the parent once listening.
 */
const bodies = loadBodies(process.argv[2], { path: '/', contentType: 'application/json', body: '' });
const app = Fastify({ logger: false });
app.get('/*', (request, reply) => {
  const { contentType, body } = bodies.forUrl(request.url);
  return reply.type(contentType).send(body);
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.(url);
process.once('SIGTERM', () => process.exit(0));

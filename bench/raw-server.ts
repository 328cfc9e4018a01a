import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadBodies } from './lib/bodies.js';

/** The same user document shape the API returns, serialised once: the ceiling of plain node:http. */
const BODY = JSON.stringify({
  user: {
    id: 1,
    username: 'NovaStrike',
    avatar: '/avatars/1.png',
    level: 10,
    achievements_count: 3,
    joined: '2025-05-06T07:08:09.000Z',
  },
});

// with a file argument (bench/pipeline.ts): the hub's own bodies, byte for byte, by path
const bodies = loadBodies(process.argv[2], {
  path: '/',
  contentType: 'application/json; charset=utf-8',
  body: Buffer.from(BODY).toString('base64'),
});

/**
 * A bare node:http server answering every request with a fixed JSON object: the baseline. Run as a
 * child process (`fork`), it listens on a free port and sends its URL to the parent.
 */
const server: Server = createServer((req, res) => {
  const { contentType, body } = bodies.forUrl(req.url ?? '/');
  res.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.(`http://127.0.0.1:${port}`);
});
process.once('SIGTERM', () => process.exit(0));

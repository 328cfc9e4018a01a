/**
 * `npm run bench:clients`: the TypeScript client against plain `fetch` (undici, Node's own), same
 * seeded `hub serve`, same run: N authenticated GETs of /api-platform/v1/users/{id} one after
 * another over a kept-alive connection, in alternating rounds. Prints requests per second of each
 * (median of the rounds), their ratio (target >= 0.9), and the time and CPU the client adds per call.
 *
 *   npm run bench:clients [-- --requests N --rounds N]
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HubClient } from '../clients/typescript/src/index.js';
import { prepareTemplate, startHub } from '../scripts/clients/hub.mjs';

const { values } = parseArgs({ options: { requests: { type: 'string' }, rounds: { type: 'string' } } });
const REQUESTS = Number(values.requests ?? 2000);
const ROUNDS = Number(values.rounds ?? 3);

const template = prepareTemplate();
const hub = await startHub(template.dir);
const key = template.fixture.api_key;
const path = '/api-platform/v1/users/{id}' as const;
const url = (id: number) => `${hub.url}/api-platform/v1/users/${id}`;
const client = new HubClient({ baseUrl: hub.url, apiKey: key });

interface Sample {
  rps: number;
  /** CPU time of this process per call, microseconds */
  cpuUs: number;
}

async function measure(call: (id: number) => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await call((i % 40) + 1);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rps: REQUESTS / seconds, cpuUs: (used.user + used.system) / REQUESTS };
}

const plain = async (id: number) => {
  const res = await fetch(url(id), { headers: { 'x-api-key': key } });
  if (!res.ok) throw new Error(`${res.status}`);
  return res.json();
};
const typed = (id: number) => client.get(path, { params: { path: { id } } });

try {
  // warm both paths (JIT, connection) before measuring
  await measure(plain);
  await measure(typed);
  const fetchRuns: Sample[] = [];
  const clientRuns: Sample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    fetchRuns.push(await measure(plain));
    clientRuns.push(await measure(typed));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const f = { rps: median(fetchRuns.map((s) => s.rps)), cpuUs: median(fetchRuns.map((s) => s.cpuUs)) };
  const c = { rps: median(clientRuns.map((s) => s.rps)), cpuUs: median(clientRuns.map((s) => s.cpuUs)) };
  const addedUs = (1e6 / c.rps - 1e6 / f.rps).toFixed(0);
  console.log(`${REQUESTS} GET ${path} per round, ${ROUNDS} alternating rounds, one connection, sequential`);
  console.log(`plain fetch:        ${f.rps.toFixed(0)} req/s   ${f.cpuUs.toFixed(0)} µs CPU per call`);
  console.log(`@gaming-hub/client: ${c.rps.toFixed(0)} req/s   ${c.cpuUs.toFixed(0)} µs CPU per call`);
  console.log(
    `ratio ${(c.rps / f.rps).toFixed(2)} (target >= 0.90); the client adds ${addedUs} µs per call (${(c.cpuUs - f.cpuUs).toFixed(0)} µs CPU)`,
  );
} finally {
  await hub.stop();
  rmSync(hub.dir, { recursive: true, force: true });
  rmSync(template.dir, { recursive: true, force: true });
}

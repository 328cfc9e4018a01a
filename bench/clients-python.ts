/**
 * `npm run bench:clients-python`: the Python client against plain httpx, same seeded `hub serve`,
 * same run (bench/clients-python/bench.py measures both in one process, in alternating rounds).
 *
 *   npm run bench:clients-python [-- --requests N --rounds N]
 */
import { join } from 'node:path';
import { benchAgainstHub } from './lib/against-hub.js';

// in the client's venv (created on first use from its pinned requirements)
await benchAgainstHub('python3', [
  join(import.meta.dirname, '../clients/python/scripts/run.py'),
  join(import.meta.dirname, 'clients-python/bench.py'),
]);

/**
 * `npm run bench:clients-python`: the Python client against plain httpx, same seeded `hub serve`,
 * same run (bench/clients-python/bench.py measures both in one process, in alternating rounds).
 *
 *   npm run bench:clients-python [-- --requests N --rounds N]
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { prepareTemplate, startHub } from '../scripts/clients/hub.mjs';

const root = join(import.meta.dirname, '..');
const template = prepareTemplate();
const hub = await startHub(template.dir);
try {
  // the client's venv (created on first use from its pinned requirements)
  const run = spawnSync(
    'python3',
    [
      join(root, 'clients/python/scripts/run.py'),
      join(import.meta.dirname, 'clients-python/bench.py'),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit', env: { ...process.env, HUB_URL: hub.url, HUB_API_KEY: template.fixture.api_key } },
  );
  process.exitCode = run.status ?? 1;
} finally {
  await hub.stop();
  rmSync(hub.dir, { recursive: true, force: true });
  rmSync(template.dir, { recursive: true, force: true });
}

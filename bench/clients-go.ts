/**
 * `npm run bench:clients-go`: the Go client against plain net/http, same seeded `hub serve`, same
 * run (bench/clients-go/main.go measures both in one process, in alternating rounds).
 *
 *   npm run bench:clients-go [-- --requests N --rounds N]
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { prepareTemplate, startHub } from '../scripts/clients/hub.mjs';

const template = prepareTemplate();
const hub = await startHub(template.dir);
try {
  const run = spawnSync('go', ['run', '.', ...process.argv.slice(2)], {
    cwd: join(import.meta.dirname, 'clients-go'),
    stdio: 'inherit',
    env: { ...process.env, HUB_URL: hub.url, HUB_API_KEY: template.fixture.api_key },
  });
  process.exitCode = run.status ?? 1;
} finally {
  await hub.stop();
  rmSync(hub.dir, { recursive: true, force: true });
  rmSync(template.dir, { recursive: true, force: true });
}

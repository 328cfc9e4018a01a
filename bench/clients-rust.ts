/**
 * `npm run bench:clients-rust`: the Rust client against plain reqwest, same seeded `hub serve`,
 * same run (bench/clients-rust/src/main.rs measures both in one process, in alternating rounds).
 * Built in release mode into clients/rust/target (one target dir for everything Rust).
 *
 *   npm run bench:clients-rust [-- --requests N --rounds N]
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { prepareTemplate, startHub } from '../scripts/clients/hub.mjs';

const root = join(import.meta.dirname, '..');
const template = prepareTemplate();
const hub = await startHub(template.dir);
try {
  const run = spawnSync(
    'cargo',
    ['run', '--quiet', '--release', '--locked', '--', ...process.argv.slice(2)],
    {
      cwd: join(import.meta.dirname, 'clients-rust'),
      stdio: 'inherit',
      env: {
        ...process.env,
        CARGO_TARGET_DIR: join(root, 'clients/rust/target'),
        HUB_URL: hub.url,
        HUB_API_KEY: template.fixture.api_key,
      },
    },
  );
  process.exitCode = run.status ?? 1;
} finally {
  await hub.stop();
  rmSync(hub.dir, { recursive: true, force: true });
  rmSync(template.dir, { recursive: true, force: true });
}

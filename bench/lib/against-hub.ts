import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { prepareTemplate, startHub } from '../../scripts/clients/hub.mjs';

/**
 * Runs a client library's bench program against a seeded `hub serve` of its own (the clients'
 * conformance hub, scripts/clients/hub.mjs), its URL and API key in HUB_URL and HUB_API_KEY, with
 * this script's arguments after `args`; exits with the program's status, the hub and its folders
 * removed whatever happens.
 */
export async function benchAgainstHub(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  const template = prepareTemplate();
  const hub = await startHub(template.dir);
  try {
    const run = spawnSync(command, [...args, ...process.argv.slice(2)], {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: 'inherit',
      env: { ...process.env, ...options.env, HUB_URL: hub.url, HUB_API_KEY: template.fixture.api_key },
    });
    process.exitCode = run.status ?? 1;
  } finally {
    await hub.stop();
    rmSync(hub.dir, { recursive: true, force: true });
    rmSync(template.dir, { recursive: true, force: true });
  }
}

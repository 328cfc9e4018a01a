import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildIfStale } from './helpers/cli.js';

const ROOT = join(import.meta.dirname, '..');

/**
 * `npx hub …` in a checkout installs the project into npm's npx cache as a link to the checkout,
 * which runs its `prepare` script again. The checkout here holds the built dist/ but no sources
 * and no tsconfig, the way `npm install` leaves a clone minus what a rebuild would need: a
 * `prepare` that compiles again fails, one that uses the built CLI answers.
 */
describe('npx hub in a built checkout', () => {
  let dir = '';
  const npx = (args: string[]) =>
    spawnSync('npx', args, {
      cwd: join(dir, 'checkout'),
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        // A private npx cache: the test's first run is a newcomer's first run.
        npm_config_cache: join(dir, 'npm-cache'),
        npm_config_yes: 'true',
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
    });

  before(() => {
    buildIfStale();
    dir = mkdtempSync(join(tmpdir(), 'hub-npx-'));
    const checkout = join(dir, 'checkout');
    mkdirSync(join(checkout, 'scripts'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(checkout, 'package.json'));
    copyFileSync(join(ROOT, 'scripts', 'prepare.mjs'), join(checkout, 'scripts', 'prepare.mjs'));
    cpSync(join(ROOT, 'dist'), join(checkout, 'dist'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the built CLI on the first and the second run without compiling again', () => {
    for (const run of ['first', 'second']) {
      const result = npx(['hub', '--help']);
      assert.equal(result.status, 0, `${run} run:\n${result.stdout}${result.stderr}`);
      assert.match(result.stdout, /Usage: hub <command>/, `${run} run`);
    }
  });

  it('still builds dist/ under `npm install` (the prepare hook compiles outside npx)', () => {
    const result = spawnSync(process.execPath, [join('scripts', 'prepare.mjs')], {
      cwd: join(dir, 'checkout'),
      encoding: 'utf8',
      env: { ...process.env, npm_command: 'install' },
    });
    // No tsconfig here: the compiler ran and said so.
    assert.notEqual(result.status, 0);
    assert.match(result.stdout + result.stderr, /tsconfig\.build\.json/);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

/** The starter: one command makes a bot project, whose own test passes. */
const ROOT = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'bot-starter-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('the starter', () => {
  it('makes a project with a bot, its test, a package and a README, and refuses a folder in use', () => {
    const target = join(scratch, 'my-bot');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bot/src/create.ts', target], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /Made a bot in .*bot.test.ts, bot.ts, package.json/);
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.equal(manifest.dependencies['@gaming-hub/bot'], '^0.1.0');
    const again = spawnSync(process.execPath, ['--import', 'tsx', 'bot/src/create.ts', target], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(again.status, 1);
    assert.match(again.stderr, /not empty/);
  });

  it("runs the template's own test: !rank answered by the test kit", () => {
    // without the runner's context, which would make the child report to this runner instead
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', 'bot/template/bot.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /# pass 1/);
  });
});

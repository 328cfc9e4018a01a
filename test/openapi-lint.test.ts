import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestContext, type TestContext } from './helpers/context.js';

// The two linters client-library authors run, over the document the app factory serves, with the
// rulesets in the repository root (.redocly.yaml, .spectral.yaml): any error or warning fails.

const run = promisify(execFile);
// Under the repository, not the system temp directory: the Spectral ruleset names locations by a
// glob relative to itself.
const dir = join('test-artifacts', `openapi-lint-${process.pid}`);
const file = join(dir, 'openapi.json');
const quiet = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** Runs a linter that exits non-zero when it finds problems; its JSON report is on stdout either way. */
async function lint(bin: string, args: string[]): Promise<string> {
  try {
    return (await run(join('node_modules', '.bin', bin), args, { env: quiet, maxBuffer: 64 << 20 })).stdout;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    if (out) return out;
    throw err;
  }
}

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

interface SpectralResult {
  code: string;
  severity: number; // 0 error, 1 warning, 2 information, 3 hint
  message: string;
  path: (string | number)[];
}

describe('the served OpenAPI document under Redocly and Spectral', () => {
  let ctx: TestContext;
  // Both start as soon as the document is written, and run side by side.
  let redocly: Promise<string>;
  let spectral: Promise<string>;

  before(async () => {
    ctx = await createTestContext('sqlite');
    const served = await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' });
    assert.equal(served.statusCode, 200);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(JSON.parse(served.body), null, 2));
    redocly = lint('redocly', ['lint', '--config', '.redocly.yaml', '--format', 'json', file]);
    spectral = lint('spectral', ['lint', '--ruleset', '.spectral.yaml', '--format', 'json', file]);
  });
  after(async () => {
    await Promise.allSettled([redocly, spectral]);
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has no Redocly error or warning (recommended ruleset)', async () => {
    const out = await redocly;
    const report = JSON.parse(out) as RedoclyReport;
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual([report.totals.errors, report.totals.warnings], [0, 0]);
  });

  it('has no Spectral error or warning (spectral:oas)', async () => {
    const out = await spectral;
    const results = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1)) as SpectralResult[];
    assert.deepEqual(
      results.filter((r) => r.severity <= 1).map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`),
      [],
    );
  });
});

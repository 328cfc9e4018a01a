#!/usr/bin/env node
// Runs every test/**/*.test.ts, bot/test/**/*.test.ts (the bot framework, its examples and its
// end-to-end test) and plugin-sdk/typescript/test/**/*.test.ts (the plugin SDK and its vectors) with node's test runner (TypeScript through tsx).
// Usage: npm test [-- path-filter ...]   e.g. npm test -- killboard; npm run test:bot
// Without a filter it then runs scripts/test-clients.mjs (the client libraries' conformance) and
// scripts/test-plugins.mjs (the plugin SDKs against a live hub).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

// The longest files start first, so that both slots of the runner end together instead of one long
// file running alone at the end. In a first CI pass on an idle machine (SQLite + PostgreSQL) they took
// 495 s (the fuzzer, both databases), 109, 47, 36, 27 and 27 s; the whole suite 867 s, with the fuzzer
// starting a third of the way in.
const LONGEST_FIRST = [
  'test/fuzz.test.ts',
  'test/code-samples.test.ts',
  'test/demo-server.e2e.test.ts',
  'test/cli.e2e.test.ts',
  'test/quota-fleet.e2e.test.ts',
  'test/operator.e2e.test.ts',
];
const rank = (file) => {
  const at = LONGEST_FIRST.indexOf(file);
  return at === -1 ? LONGEST_FIRST.length : at;
};

const filters = process.argv.slice(2);
const files = [...findTests('test'), ...findTests('bot/test'), ...findTests('plugin-sdk/typescript/test')]
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
// The timeout bounds each file as a whole (its tests inherit it). 15 min: on a fresh machine the
// clients' drift test first builds the generators (oapi-codegen, the progenitor crate), which took
// more than 5 min in a cold run at load 20.
// Two reporters: the usual one on stdout, and one listing only the failures in a file that is printed
// again at the very end of the run (after the clients' and plugins' tables), where a log's tail shows it.
const failuresDir = mkdtempSync(join(tmpdir(), 'hub-test-failures-'));
const failuresFile = join(failuresDir, 'failures.txt');
const args = [
  '--import',
  'tsx',
  '--test',
  '--test-concurrency=2',
  '--test-timeout=900000',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/failures-reporter.mjs',
  `--test-reporter-destination=${failuresFile}`,
  ...files,
];
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
});
// TEST_LANGUAGES (comma-separated, e.g. `typescript`): only those columns of the two matrices below;
// PLUGINS_SKIP: not the plugin SDKs' matrix at all (CI's second pass, see .ci/run).
const languages = (process.env.TEST_LANGUAGES ?? '').split(',').filter(Boolean);
// The whole suite also runs the client libraries against a seeded hub (npm run test:clients).
const clients =
  filters.length === 0
    ? spawnSync(process.execPath, ['scripts/test-clients.mjs', ...languages], { stdio: 'inherit' })
    : undefined;
// ... and the plugin SDKs' scenarios and reference plugins against a live hub (npm run test:plugins),
// on the dist/ that test-clients.mjs has just built.
const plugins =
  filters.length === 0 && !process.env.PLUGINS_SKIP
    ? spawnSync(process.execPath, ['scripts/test-plugins.mjs', ...languages], {
        stdio: 'inherit',
        env: { ...process.env, PLUGINS_SKIP_BUILD: '1' },
      })
    : undefined;
let failed = '';
try {
  failed = readFileSync(failuresFile, 'utf8').trim();
} catch {
  // no file: the runner did not start
}
rmSync(failuresDir, { recursive: true, force: true });
const summary = [
  ['node tests', result.status],
  ['client libraries (test:clients)', clients?.status],
  ['plugin SDKs (test:plugins)', plugins?.status],
].filter(([, status]) => status !== undefined);
console.log(
  `\nnpm test: ${summary.map(([part, status]) => `${part}: ${status === 0 ? 'pass' : `FAIL (exit ${status})`}`).join('; ')}`,
);
if (filters.length === 0 && process.env.PLUGINS_SKIP)
  console.log('plugin SDKs (test:plugins): skipped (PLUGINS_SKIP)');
if (failed) console.log(`failed node tests:\n${failed}`);
process.exit(result.status || clients?.status || (plugins?.status ?? 0));

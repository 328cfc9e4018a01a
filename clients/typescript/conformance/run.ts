// The TypeScript implementation of every conformance scenario (clients/conformance/scenarios.json),
// under Node: one JSON line per scenario on stdout, `{"scenario", "status": "pass"|"fail", "duration_ms", "error"?}`.
import { readFileSync } from 'node:fs';
import { configure, type Fixture, type Scenario, type WebhookVector } from './harness.js';
import { runScenarios } from './scenarios.js';

const fixtureFile = process.env.HUB_CONFORMANCE_FIXTURE;
if (!fixtureFile)
  throw new Error('HUB_CONFORMANCE_FIXTURE is not set: run `npm run test:clients` at the root');
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const fixture = readJson<Fixture>(fixtureFile);
const { scenarios } = readJson<{ scenarios: Scenario[] }>(fixture.scenarios_file);
const { vectors } = readJson<{ vectors: WebhookVector[] }>(fixture.vectors_file);
configure({ fixture, scenarios, vectors });

const failed = await runScenarios(scenarios, {
  language: 'typescript',
  only: process.argv.slice(2),
  report: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
});
process.exitCode = failed === 0 ? 0 : 1;

// The TypeScript implementation of every conformance scenario (clients/conformance/scenarios.json):
// one JSON line per scenario on stdout, `{"scenario", "status": "pass"|"fail", "duration_ms", "error"?}`.
import { readFileSync } from 'node:fs';
import { CUSTOM } from './custom.js';
import { runCalls, runPaginate } from './declarative.js';
import { fixture, type Scenario } from './harness.js';

const { scenarios } = JSON.parse(readFileSync(fixture.scenarios_file, 'utf8')) as { scenarios: Scenario[] };
const only = process.argv.slice(2);
let failed = 0;
for (const scenario of scenarios) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  const run =
    scenario.kind === 'calls'
      ? () => runCalls(scenario)
      : scenario.kind === 'paginate'
        ? () => runPaginate(scenario)
        : CUSTOM[scenario.name]?.bind(undefined, scenario.name);
  if (!run) continue; // not implemented: the runner reports it missing
  const started = performance.now();
  const line: Record<string, unknown> = { scenario: scenario.name, language: 'typescript' };
  try {
    await run();
    line.status = 'pass';
  } catch (error) {
    failed++;
    line.status = 'fail';
    line.error = error instanceof Error ? error.message : String(error);
  }
  line.duration_ms = Math.round(performance.now() - started);
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
process.exitCode = failed === 0 ? 0 : 1;

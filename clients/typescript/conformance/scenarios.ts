// Runs the scenarios one after another, in file order, and reports one result line each: the loop
// that the Node entry (run.ts) and the browser entry (browser.ts) share.
import { CUSTOM } from './custom.js';
import { runCalls, runPaginate } from './declarative.js';
import type { Scenario } from './harness.js';

export interface ScenarioLine {
  scenario: string;
  language: string;
  status: 'pass' | 'fail' | 'n/a';
  duration_ms?: number;
  error?: string;
  /** why the scenario cannot run where this language runs (`n/a`) */
  reason?: string;
}

export interface RunOptions {
  language: string;
  /** only these scenarios (all when empty) */
  only: readonly string[];
  /** scenarios that cannot run here by nature, with the reason */
  notApplicable?: Readonly<Record<string, string>>;
  report: (line: ScenarioLine) => void;
}

/** Runs `scenarios`; answers the number that failed. A scenario with no implementation gets no line. */
export async function runScenarios(scenarios: readonly Scenario[], options: RunOptions): Promise<number> {
  let failed = 0;
  for (const scenario of scenarios) {
    if (options.only.length > 0 && !options.only.includes(scenario.name)) continue;
    const reason = options.notApplicable?.[scenario.name];
    if (reason !== undefined) {
      options.report({ scenario: scenario.name, language: options.language, status: 'n/a', reason });
      continue;
    }
    const run =
      scenario.kind === 'calls'
        ? () => runCalls(scenario)
        : scenario.kind === 'paginate'
          ? () => runPaginate(scenario)
          : CUSTOM[scenario.name]?.bind(undefined, scenario.name);
    if (!run) continue; // not implemented: the runner reports it missing
    const started = performance.now();
    const line: ScenarioLine = { scenario: scenario.name, language: options.language, status: 'pass' };
    try {
      await run();
    } catch (error) {
      failed++;
      line.status = 'fail';
      line.error = error instanceof Error ? error.message : String(error);
    }
    line.duration_ms = Math.round(performance.now() - started);
    options.report(line);
  }
  return failed;
}

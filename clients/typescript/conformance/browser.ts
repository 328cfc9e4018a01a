// The conformance scenarios in a browser page: the entry point that scripts/clients/browser-scenarios.ts
// bundles (esbuild) and loads in Chromium, on a page of another origin than the hub's. The page calls
// `runConformance(…)`, and each result goes back to Node through `reportScenario` (a function the
// driver exposes on the page) as it is known.
import { configure, type Conformance } from './harness.js';
import { runScenarios, type ScenarioLine } from './scenarios.js';

export const BROWSER_LANGUAGE = 'typescript (browser)';

/**
 * What a web page cannot do by nature, so the browser column shows `n/a` with the reason; every
 * other scenario runs in the page.
 */
export const NOT_IN_A_BROWSER: Readonly<Record<string, string>> = {
  'retry.write_without_key_not_retried':
    'its write is POST /api-platform/developer/session, the portal sign-in, which the hub keeps same-origin (no CORS): no page of another origin can send it',
};

declare global {
  var reportScenario: ((line: ScenarioLine) => Promise<void>) | undefined;
  var runConformance: ((conformance: Conformance, only: string[]) => Promise<number>) | undefined;
}

globalThis.runConformance = async (conformance, only) => {
  configure(conformance);
  const pending: Promise<void>[] = [];
  const failed = await runScenarios(conformance.scenarios, {
    language: BROWSER_LANGUAGE,
    only,
    notApplicable: NOT_IN_A_BROWSER,
    report: (line) => void pending.push(globalThis.reportScenario?.(line) ?? Promise.resolve()),
  });
  await Promise.all(pending);
  return failed;
};

import type * as App from '../src/app.js';
import type * as Config from '../src/config.js';
import type * as Switches from '../src/http/pipeline-switches.js';
import type * as Startup from '../src/startup.js';

/**
 * The service as `hub serve` builds it (from the build, with the same config from the environment),
 * with the pipeline steps named in the first argument (comma-separated) turned off through
 * buildApp's bench-only option. A child process of bench/pipeline.ts; sends its URL to the parent
 * once listening.
 */
// the build, as `hub serve` runs it (and many times faster to load than the sources through tsx)
const dist = (path: string) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { buildApp } = (await dist('app.js')) as typeof App;
const { loadConfig } = (await dist('config.js')) as typeof Config;
const { PIPELINE_STEPS } = (await dist('http/pipeline-switches.js')) as typeof Switches;
const { openDatabase } = (await dist('startup.js')) as typeof Startup;

const off = (process.argv[2] ?? '').split(',').filter(Boolean);
const steps = new Set<Switches.PipelineStep>();
for (const step of off) {
  const known = PIPELINE_STEPS.find((s) => s === step);
  if (!known) throw new Error(`unknown pipeline step ${step}`);
  steps.add(known);
}
const config = loadConfig();
const db = await openDatabase(config.DATABASE_URL);
const app = await buildApp({ db, config, stepsOff: steps });
// Node's own listen, not Fastify's: requests are served the same, but the onListen hook that
// compresses the docs bundle (seconds of CPU per process, a dozen processes here) does not run.
app.server.listen(0, '127.0.0.1', () => {
  const address = app.server.address();
  if (address && typeof address === 'object') process.send?.(`http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0));
});

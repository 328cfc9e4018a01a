import type { Config } from '../config.js';
import { connect } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { API_PREFIX, DOCS_PATH } from '../http/paths.js';
import { keysRepo } from '../modules/keys/repo.js';
import { createKey } from '../modules/keys/service.js';
import { startServer } from '../server.js';
import { parse } from './args.js';
import { startBackground } from './worker.js';
import { isDatabaseEmpty, seedDatabase } from '../seed/index.js';
import { progressReporter } from '../seed/progress.js';

/**
 * `hub serve [--demo]`: migrates and listens. With --demo (what `npm start` runs) an empty database
 * is filled with demo data and a demo key is created and printed once.
 */
export async function serveCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parse(argv, { demo: { type: 'boolean' } });
  const db = connect(config.DATABASE_URL);
  await migrateToLatest(db);
  let demoKey: string | undefined;
  if (values.demo) {
    if (await isDatabaseEmpty(db)) {
      console.log('Empty database: loading demo data…');
      const summary = await seedDatabase(db, { onProgress: progressReporter() });
      console.log(`Loaded demo data in ${(summary.ms / 1000).toFixed(1)} s.`);
    }
    const created = await createKey(keysRepo(db.kysely), { name: 'demo key', tier: 'premium' });
    demoKey = created.secret;
  }
  const server = await startServer(config, db);
  // Embedded setup: the poller and UDP log receiver run in-process (scale-out: `hub worker`).
  if (config.WORKER_IN_SERVE && db.dialect === 'sqlite')
    await startBackground(config, db, (m, e) => server.app.log.error({ err: e }, m));
  const base = config.PUBLIC_BASE_URL ?? server.url;
  console.log(`Gaming Hub API listening on ${server.url}`);
  console.log(`  API base:  ${base}${API_PREFIX}`);
  console.log(`  API docs:  ${base}${DOCS_PATH}`);
  console.log(`  Portal:    ${base}/api-platform/developer   (sign up, get a key, watch usage)`);
  if (demoKey) {
    console.log(`  Demo key:  ${demoKey}   (premium tier; shown once)`);
    console.log(`  Try:       curl -H 'x-api-key: ${demoKey}' ${base}${API_PREFIX}/leaderboards?limit=5`);
  }
}

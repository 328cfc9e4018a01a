import type { Config } from '../config.js';
import { API_PREFIX, DOCS_PATH, OPS_PATHS } from '../http/paths.js';
import { createMetrics } from '../http/metrics.js';
import { startServer } from '../server.js';
import { exitOnSignal } from '../shutdown.js';
import { isDatabaseEmpty, seedDatabase } from '../seed/index.js';
import { progressReporter } from '../seed/progress.js';
import { serverCommandsRepo } from '../modules/servers/commands/repo.js';
import { sealedPasswordsProblem } from '../modules/servers/commands/key-check.js';
import { openDatabase, StartupError } from '../startup.js';
import { parse } from './args.js';
import { demoKey, localDataFolder, type DemoKey } from './demo-key.js';
import { secretKeyFor } from './secret-key.js';
import { startBackground } from './worker.js';
import {
  DEMO_SERVER_NAME,
  demoServerMark,
  startDemoServer,
  type DemoServer,
} from '../modules/demo-server/start.js';

function describeDemoKey(key: DemoKey): string {
  if (!key.secret)
    return `${key.prefix}…   (premium tier, made by an earlier start; its secret is not kept here: \`hub keys revoke ${key.id}\` and start again for a new one)`;
  if (key.created)
    return `${key.secret}   (premium tier${key.file ? `; kept in ${key.file} for the next start` : '; shown once'})`;
  return `${key.secret}   (premium tier, made by an earlier start; read from ${key.file ?? 'the data folder'})`;
}

/** Why the demo game server does not run, or undefined when it should. */
function demoServerOff(config: Config, flag: boolean | undefined): string | undefined {
  if (flag) return '--no-demo-server';
  if (config.DEMO_SERVER === 'off') return 'DEMO_SERVER=off';
  return undefined;
}

/**
 * `hub serve [--demo]`: migrates and listens. With --demo (what `npm start` runs) an empty database
 * is filled with demo data, the demo key is made once and reused on later starts, and a demo game
 * server plays CS2 matches into the hub (modules/demo-server) until the service stops.
 * On SIGTERM/SIGINT: requests in flight finish, buffered usage counts and UDP log lines are written,
 * then the database closes.
 */
export async function serveCommand(config: Config, argv: string[]): Promise<void> {
  const { values } = parse(argv, { demo: { type: 'boolean' }, 'no-demo-server': { type: 'boolean' } });
  const db = await openDatabase(config.DATABASE_URL);
  let key: DemoKey | undefined;
  if (values.demo) {
    if (await isDatabaseEmpty(db)) {
      console.log('Empty database: loading demo data…');
      const summary = await seedDatabase(db, { onProgress: progressReporter() });
      console.log(`Loaded demo data in ${(summary.ms / 1000).toFixed(1)} s.`);
    }
    key = await demoKey(db.kysely, localDataFolder(config.DATABASE_URL));
  }
  const secretKey = secretKeyFor(config);
  const sealedProblem = await sealedPasswordsProblem(serverCommandsRepo(db.kysely), secretKey);
  if (sealedProblem) {
    await db.close();
    throw new StartupError(sealedProblem);
  }
  const off = demoServerOff(config, values['no-demo-server']);
  const mark = values.demo && !off ? demoServerMark() : undefined;
  const metrics = createMetrics();
  const server = await startServer(config, db, {
    metrics,
    ...(secretKey ? { secretKey } : {}),
    ...(mark ? { quietAccessLog: mark.marks } : {}),
  });
  const log = server.app.log;
  // Embedded setup: the poller and UDP log receiver run in-process (scale-out: `hub worker`).
  const background =
    config.WORKER_IN_SERVE && db.dialect === 'sqlite'
      ? await startBackground(config, db, {
          log: (m, e) => log.error({ err: e }, m),
          metrics,
          broadcast: server.app.broadcast,
          udpInUse: 'warn',
        })
      : undefined;
  let demoServer: DemoServer | { off: string } | undefined;
  if (mark) {
    demoServer = await startDemoServer(db.kysely, server.url, { report: (line) => console.log(line), mark });
  }
  exitOnSignal(async () => {
    // the game stops first (its last batch answered), then the HTTP side drains while the
    // receiver writes what it buffers; the database closes last
    if (demoServer && 'stop' in demoServer) await demoServer.stop();
    await Promise.all([server.close(), background?.stop()]);
    await db.close();
  }, log);

  const base = config.PUBLIC_BASE_URL ?? server.url;
  console.log(`Gaming Hub API listening on ${server.url}`);
  console.log(`  API base:  ${base}${API_PREFIX}`);
  console.log(`  API docs:  ${base}${DOCS_PATH}`);
  console.log(`  Portal:    ${base}/api-platform/developer   (sign up, get a key, watch usage)`);
  console.log(
    `  Probes:    ${base}${OPS_PATHS.health}  ${base}${OPS_PATHS.ready}  ${base}${OPS_PATHS.metrics}`,
  );
  if (!secretKey) console.log('  Commands:  off (remote server commands need HUB_SECRET_KEY)');
  if (key) {
    console.log(`  Demo key:  ${describeDemoKey(key)}`);
    if (key.secret)
      console.log(
        `  Try:       curl -H 'x-api-key: ${key.secret}' ${base}${API_PREFIX}/leaderboards?limit=5`,
      );
    if (demoServer && 'stop' in demoServer) {
      console.log(
        `  Demo server: "${DEMO_SERVER_NAME}" (id ${demoServer.id}) plays CS2 matches among ${demoServer.players} demo players, posting its log to ${base}/api-platform/ingest/logs`,
      );
      console.log(
        `               watch ${base}${API_PREFIX}/killboard/feed or ${base}/v1/events/stream; it stops with the hub (Ctrl-C); start without it: --no-demo-server or DEMO_SERVER=off`,
      );
    } else {
      console.log(`  Demo server: off (${off ?? demoServer?.off ?? ''})`);
    }
  }
}

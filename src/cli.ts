#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { openDatabase, StartupError } from './startup.js';
import { UsageError } from './commands/args.js';
import { appsCommand, APPS_USAGE } from './commands/apps.js';
import { keysCommand, KEYS_USAGE } from './commands/keys.js';
import { seedCommand, SEED_USAGE } from './commands/seed.js';
import { usersCommand, USERS_USAGE } from './commands/users.js';
import { isHelp, serversCommand, SERVERS_HELP, SERVERS_USAGE } from './commands/servers.js';
import { workerCommand } from './commands/worker.js';
import { SERVE_HELP, SERVE_USAGE } from './commands/serve-usage.js';
import { secretKeyFor } from './commands/secret-key.js';
import { AuditFailed, economyCommand, ECONOMY_USAGE } from './commands/economy.js';

const USAGE = `Usage: hub <command>

  ${SERVE_USAGE.split('\n').join('\n  ')}
  hub migrate               apply database migrations to DATABASE_URL
  ${SEED_USAGE}
  ${KEYS_USAGE.split('\n').join('\n  ')}
  ${USERS_USAGE.split('\n').join('\n  ')}
  ${SERVERS_USAGE.split('\n').join('\n  ')}
  ${APPS_USAGE.split('\n').join('\n  ')}
  ${ECONOMY_USAGE.split('\n').join('\n  ')}
  hub worker                poll game servers (A2S / Server List Ping) and receive UDP logs

Environment: PORT, HOST, DATABASE_URL, REDIS_URL, LOG_LEVEL, PUBLIC_BASE_URL, CACHE_TTL_MS; every variable with its default: docs/operating.md.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      if (isHelp(rest[0])) {
        console.log(SERVE_HELP);
        return;
      }
      // loaded on demand: the HTTP stack is most of the start-up time of the other commands
      const { serveCommand } = await import('./commands/serve.js');
      return serveCommand(config, rest);
    }
    case 'migrate': {
      // opened without openDatabase's migration: this command reports what it applies
      const db = await openDatabase(config.DATABASE_URL, { migrate: false });
      try {
        const result = await migrateToLatest(db);
        const applied =
          result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
        console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
      } finally {
        await db.close();
      }
      return;
    }
    case 'worker':
      return workerCommand(config);
    case 'servers': {
      if (isHelp(rest[0])) {
        console.log(SERVERS_HELP);
        return;
      }
      const db = await openDatabase(config.DATABASE_URL);
      try {
        await serversCommand(db, rest, () => secretKeyFor(config));
      } finally {
        await db.close();
      }
      return;
    }
    case 'economy': {
      const db = await openDatabase(config.DATABASE_URL);
      try {
        await economyCommand(db, rest);
      } finally {
        await db.close();
      }
      return;
    }
    case 'seed':
    case 'users':
    case 'apps':
    case 'keys': {
      const db = await openDatabase(config.DATABASE_URL);
      try {
        if (command === 'seed') await seedCommand(db, rest);
        else if (command === 'users') await usersCommand(db, rest);
        else if (command === 'apps') await appsCommand(db, rest, config);
        else await keysCommand(db, rest);
      } finally {
        await db.close();
      }
      return;
    }
    default:
      throw new UsageError(`Unknown command '${command}'.\n\n${USAGE}`);
  }
}

// Usage errors exit 2; start-up failures an operator can fix (settings, ports, the database) are
// one line and exit 1; anything else is a bug, printed with its stack.
main(process.argv.slice(2)).catch((err: unknown) => {
  // the audit printed its report; the exit status says the ledger is not sound
  if (err instanceof AuditFailed) process.exit(1);
  if (err instanceof UsageError) {
    console.error(err.message);
    process.exit(2);
  }
  if (err instanceof ConfigError || err instanceof StartupError) {
    console.error(`hub: ${err.message}`);
    process.exit(1);
  }
  console.error(err);
  process.exit(1);
});

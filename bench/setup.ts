import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { connect, type Db } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { appsRepo } from '../src/modules/apps/repo.js';
import { appsService } from '../src/modules/apps/service.js';
import { keysRepo } from '../src/modules/keys/repo.js';
import { createKey } from '../src/modules/keys/service.js';
import { TIERS } from '../src/modules/keys/tiers.js';

export interface BenchDb {
  db: Db;
  /** the database's DATABASE_URL, for the service processes */
  url: string;
  seedMs: number;
  drop(): Promise<void>;
}

/**
 * A fresh temp SQLite database with the demo world at the requested size, seeded by `hub seed` in
 * its own process as an operator would: the process under load then starts with a clean heap
 * rather than one that has just built millions of rows.
 */
export async function seededDb(users: number, kills: number, seed: number): Promise<BenchDb> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-db-'));
  const url = `sqlite:${join(dir, 'hub.sqlite')}`;
  const started = performance.now();
  runSeed(url, users, kills, seed);
  // A big seed leaves gigabytes of dirty pages; flushing them now keeps the kernel's writeback
  // from competing with the measured runs.
  const fd = openSync(url.slice('sqlite:'.length), 'r');
  fsyncSync(fd);
  closeSync(fd);
  const db = connect(url);
  await migrateToLatest(db);
  return {
    db,
    url,
    seedMs: performance.now() - started,
    drop: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The same demo world as `seededDb` (same sizes and seed: the same rows) in a PostgreSQL database
 * of its own, created on `serverUrl`'s server for the run and dropped afterwards.
 */
export async function seededPostgres(
  serverUrl: string,
  users: number,
  kills: number,
  seed: number,
): Promise<BenchDb> {
  const name = `hub_bench_${process.pid}`;
  const admin = connect(serverUrl, { poolSize: 1 });
  await sql`create database ${sql.id(name)}`.execute(admin.kysely);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const started = performance.now();
  runSeed(url.href, users, kills, seed);
  const db = connect(url.href);
  await migrateToLatest(db);
  return {
    db,
    url: url.href,
    seedMs: performance.now() - started,
    drop: async () => {
      await db.close();
      await sql`drop database ${sql.id(name)} with (force)`.execute(admin.kysely);
      await admin.close();
    },
  };
}

/** `hub seed` in its own process, as an operator runs it. */
function runSeed(url: string, users: number, kills: number, seed: number): void {
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const args = ['--import', 'tsx', cli, 'seed', '--users', String(users), '--kills', String(kills)];
  const child = spawnSync(process.execPath, [...args, '--seed', String(seed)], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url },
  });
  if (child.status !== 0) throw new Error(`hub seed failed (exit ${String(child.status)})`);
}

/** Enough partner keys that `expectedRequests` spread evenly never reach one key's hourly quota. */
export async function partnerKeys(db: Db, expectedRequests: number): Promise<string[]> {
  return newPartnerKeys(db, Math.max(20, Math.ceil((expectedRequests * 2) / TIERS.partner)));
}

/** `count` new partner keys' secrets. */
export async function newPartnerKeys(db: Db, count: number): Promise<string[]> {
  const repo = keysRepo(db.kysely);
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    keys.push((await createKey(repo, { name: `bench ${i + 1}`, tier: 'partner' })).secret);
  }
  return keys;
}

/**
 * `count` confidential OAuth apps of one partner account: each app's tokens get the partner quota
 * per (app, user) pair, so a run spread over the apps never reaches one pair's quota.
 */
export async function partnerApps(db: Db, count: number) {
  const owner = await db.kysely
    .insertInto('users')
    .values({
      username: 'bench_owner',
      avatar: '',
      joined_at: Date.now(),
      password_hash: null,
      is_partner: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const apps = appsService(appsRepo(db.kysely), () => Promise.resolve(), Date.now);
  const created = [];
  for (let i = 0; i < count; i++) {
    created.push(
      await apps.create(owner.id, {
        name: `bench ${i}`,
        kind: 'confidential',
        redirect_uris: ['http://127.0.0.1:9/cb'],
      }),
    );
  }
  return created;
}

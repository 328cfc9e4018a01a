// The OpenAPI document exactly as the service serves it at /api-platform/v1/openapi.json, from the
// app factory on a throwaway SQLite database (the document depends on the routes only, never on
// data). `npm run clients:generate` writes it to clients/openapi.json; the drift test compares.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { connect } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { OPENAPI_PATH } from '../../src/http/paths.js';

/** The served document, pretty-printed (2 spaces, final newline) so its diffs are readable. */
export async function dumpOpenApi(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-openapi-'));
  const db = connect(`sqlite:${join(dir, 'hub.sqlite')}`);
  try {
    await migrateToLatest(db);
    const app = await buildApp({ db, config: { LOG_LEVEL: 'silent', CACHE_TTL_MS: 0, TRUST_PROXY: false } });
    try {
      const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
      if (res.statusCode !== 200) throw new Error(`GET ${OPENAPI_PATH} answered ${res.statusCode}`);
      return `${JSON.stringify(res.json(), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

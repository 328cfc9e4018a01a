import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  generateSecretKey,
  parseSecretKey,
  SECRET_KEY_FORMAT,
  SecretBoxError,
  type SecretKey,
} from '../engines/secret-box.js';
import { StartupError } from '../startup.js';
import { localDataFolder } from './demo-key.js';

const FILE_NAME = 'secret-key';

const codeOf = (err: unknown) => (err as { code?: unknown } | null)?.code;

function readKeyFile(file: string): SecretKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined;
    throw new StartupError(`cannot read the secret key file ${file}: ${(err as Error).message}`);
  }
  try {
    return parseSecretKey(text);
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    throw new StartupError(
      `the secret key file ${file} is damaged: it must hold ${SECRET_KEY_FORMAT}; restore it from a backup (or set HUB_SECRET_KEY)`,
    );
  }
}

/**
 * The key that seals RCON passwords: HUB_SECRET_KEY when set; otherwise, with an embedded SQLite
 * database, the one kept in its data folder (`secret-key`, mode 0600, made on first use, like the
 * demo key), so `npm start` and the `hub` commands beside it agree; otherwise none (PostgreSQL
 * without HUB_SECRET_KEY: server commands are off).
 */
export function secretKeyFor(config: Pick<Config, 'DATABASE_URL' | 'HUB_SECRET_KEY'>): SecretKey | undefined {
  if (config.HUB_SECRET_KEY !== undefined) {
    try {
      return parseSecretKey(config.HUB_SECRET_KEY);
    } catch (err) {
      if (err instanceof SecretBoxError) throw new StartupError(err.message);
      throw err;
    }
  }
  const folder = localDataFolder(config.DATABASE_URL);
  if (folder === undefined) return undefined;
  const file = join(folder, FILE_NAME);
  const kept = readKeyFile(file);
  if (kept) return kept;
  const { key, text } = generateSecretKey();
  try {
    // 'wx': another process starting at the same moment keeps its own; both then read the one written
    writeFileSync(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (codeOf(err) !== 'EEXIST')
      throw new StartupError(`cannot write the secret key file ${file}: ${(err as Error).message}`);
    return readKeyFile(file);
  }
  return key;
}

import { sql, type Kysely } from 'kysely';
import type { Database } from './types.js';

/**
 * One trivial statement, answered within `timeoutMs` or rejected: how start-up and the readiness
 * probe tell a database that answers from one that refuses, is missing, or hangs.
 */
export async function pingDatabase(db: Kysely<Database>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(db), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class DatabaseTimeoutError extends Error {
  override name = 'DatabaseTimeoutError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

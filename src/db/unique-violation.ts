/**
 * Whether a database error is a unique-constraint violation (PostgreSQL 23505, SQLite
 * SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY): a concurrent writer got there first. Callers re-read
 * the state after rolling back to say which rule the request broke.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error) || !('code' in error)) return false;
  const { code } = error;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

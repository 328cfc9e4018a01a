import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../connect.js';

/** An auto-increment integer primary key in both dialects (bigserial on PostgreSQL when `big`). */
export function withId<T extends string>(
  table: CreateTableBuilder<T>,
  dialect: Dialect,
  big = false,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', big ? 'bigserial' : 'serial', (c) => c.primaryKey());
}

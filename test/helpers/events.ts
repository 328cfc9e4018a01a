import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.js';
import { EVENT_CATALOG } from '../../src/modules/events/catalog.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
formats.default(ajv);

export interface StoredEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
  user_id: number | null;
  app_id: number | null;
  scope: string | null;
}

/** Every event in the outbox after `after`, oldest first, read straight from the table. */
export async function eventsAfter(db: Kysely<Database>, after = 0): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'data', 'user_id', 'app_id', 'scope'])
    .where('id', '>', after)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
}

export async function lastEventId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return row?.max ?? 0;
}

/** Asserts that each event is of a catalogued type, its data fits the type's schema, and its scope is the type's. */
export function assertCatalogued(events: readonly StoredEvent[]): void {
  for (const event of events) {
    const definition = EVENT_CATALOG.get(event.type);
    assert.ok(definition, `${event.type} is not in the catalog`);
    const validate = ajv.compile(definition.schema);
    assert.ok(validate(event.data), `${event.type}: ${ajv.errorsText(validate.errors)}`);
    assert.equal(event.scope, definition.scope, event.type);
    if (definition.audience === 'user') assert.notEqual(event.user_id, null, `${event.type} names no user`);
  }
}

export const ofType = (events: readonly StoredEvent[], type: string) => events.filter((e) => e.type === type);

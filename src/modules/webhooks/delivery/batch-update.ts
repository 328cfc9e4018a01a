import { sql, type Kysely } from 'kysely';
import type { Database, WebhookDeliveryStatus } from '../../../db/types.js';

/** What an attempt leaves on its delivery row. */
export interface DeliveryUpdate {
  id: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  statusCode: number | null;
  latencyMs: number;
  response: string | null;
  error: string | null;
  /** null: left as it is */
  deliveredAt: number | null;
}

const CHUNK = 500;

/**
 * Records a batch of attempts on their delivery rows in one statement per 500 rows (each row its
 * own values) instead of one UPDATE per delivery: at thousands of deliveries a second the round
 * trips to PostgreSQL were the cost. Ends each row's claim. `WITH … AS (VALUES …) UPDATE … FROM`
 * runs on both PostgreSQL and SQLite (3.33+); the casts give PostgreSQL the types of the values.
 */
export async function updateDeliveries(
  trx: Kysely<Database>,
  rows: readonly DeliveryUpdate[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values = sql.join(
      rows
        .slice(i, i + CHUNK)
        .map(
          (r) =>
            sql`(cast(${r.id} as bigint), cast(${r.status} as varchar(16)), cast(${r.attempts} as integer), cast(${r.nextAttemptAt} as bigint), cast(${r.statusCode} as integer), cast(${r.latencyMs} as integer), cast(${r.response} as text), cast(${r.error} as varchar(500)), cast(${r.deliveredAt} as bigint))`,
        ),
    );
    await sql`with v (id, status, attempts, next_attempt_at, last_status_code, last_latency_ms, last_response, last_error, delivered_at) as (values ${values})
      update webhook_deliveries set
        status = v.status,
        attempts = v.attempts,
        next_attempt_at = v.next_attempt_at,
        claimed_until = null,
        claimed_by = null,
        last_status_code = v.last_status_code,
        last_latency_ms = v.last_latency_ms,
        last_response = v.last_response,
        last_error = v.last_error,
        delivered_at = coalesce(v.delivered_at, webhook_deliveries.delivered_at)
      from v
      where webhook_deliveries.id = v.id`.execute(trx);
  }
}

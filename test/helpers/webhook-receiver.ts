import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../src/db/connect.js';
import { emitEvents } from '../../src/modules/events/outbox.js';

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface Receipt {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  receipts: Receipt[];
  close(): Promise<void>;
}

/** A local webhook receiver answering with `answer`, keeping every request it gets. */
export async function receiver(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) => res.end('ok'),
): Promise<Receiver> {
  const receipts: Receipt[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receipts.push({ headers: req.headers, body, at: Date.now() });
      answer(req, res, body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    receipts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The receipt's payload, verified with the `standardwebhooks` library (throws when it does not verify). */
export const verified = (secret: string, r: Receipt): Record<string, unknown> =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;

/** A webhook row (owned by `userId`) with one current secret, straight into the tables. */
export async function insertWebhook(
  db: Db,
  userId: number,
  url: string,
  now: number,
  secrets: string[] = [newWebhookSecret()],
): Promise<{ id: number; secrets: string[] }> {
  const { id } = await db.kysely
    .insertInto('webhooks')
    .values({
      user_id: userId,
      app_id: null,
      url,
      events: '*',
      description: null,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
      failing_since: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.kysely
    .insertInto('webhook_secrets')
    .values(secrets.map((secret, i) => ({ webhook_id: id, secret, created_at: now + i, expires_at: null })))
    .execute();
  return { id, secrets };
}

/** Emits `count` events and queues a delivery of each to each webhook, due at `now`. */
export async function queueDeliveries(
  db: Db,
  webhookIds: number[],
  count: number,
  now: number,
): Promise<number[]> {
  return db.kysely.transaction().execute(async (trx) => {
    const ids = await emitEvents(
      trx,
      db.dialect,
      Array.from({ length: count }, (_, i) => ({ type: 'test.delivered', data: { n: i } })),
      now,
    );
    for (const webhookId of webhookIds)
      await trx
        .insertInto('webhook_deliveries')
        .values(
          ids.map((eventId) => ({
            webhook_id: webhookId,
            event_id: eventId,
            status: 'pending' as const,
            next_attempt_at: now,
            claimed_until: null,
            claimed_by: null,
            last_status_code: null,
            last_latency_ms: null,
            last_response: null,
            last_error: null,
            created_at: now,
            delivered_at: null,
          })),
        )
        .execute();
    return ids;
  });
}

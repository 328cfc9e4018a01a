import type { Db } from '../../db/connect.js';
import type { WebhookDeliveryStatus } from '../../db/types.js';
import { ProblemError } from '../../http/problem.js';
import { DELIVERY_RETENTION_MS, deliveriesRepo, type DeliveryRow } from './deliveries-repo.js';
import { webhookDispatcher } from './dispatch.js';
import type { WebhookOwner } from './owner.js';
import { webhooksRepo, type WebhookRow } from './repo.js';
import { checkEventTypes, checkWebhookUrl, encodeEventTypes, type TargetPolicy } from './rules.js';
import { newWebhookSecret, ROTATION_OVERLAP_MS } from './secret.js';

/** A replay queues at most this many deliveries per call. */
export const REPLAY_MAX = 10_000;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null | undefined;
}

export interface WebhookPatch {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

const notFound = (id: number) => new ProblemError('webhook_not_found', `There is no webhook with id ${id}.`);

/** Webhook subscriptions of an owner: every read and write is scoped to the owner (else 404). */
export function webhooksService(db: Db, options: { now: () => number } & TargetPolicy) {
  const { now } = options;
  const repo = webhooksRepo(db.kysely);
  const deliveries = deliveriesRepo(db.kysely);
  const dispatcher = webhookDispatcher(db);

  async function owned(owner: WebhookOwner, id: number): Promise<WebhookRow> {
    const row = await repo.find(owner, id);
    if (!row) throw notFound(id);
    return row;
  }

  return {
    repo,

    async create(owner: WebhookOwner, input: WebhookInput): Promise<{ webhook: WebhookRow; secret: string }> {
      const fields = {
        url: await checkWebhookUrl(input.url, options),
        events: encodeEventTypes(checkEventTypes(input.events)),
        description: input.description?.trim() ? input.description.trim() : null,
      };
      const secret = newWebhookSecret();
      return { webhook: await repo.create(owner, fields, secret, now()), secret };
    },

    list: (owner: WebhookOwner, page: { limit: number; offset: number }) => repo.list(owner, page),

    get: owned,

    async update(owner: WebhookOwner, id: number, patch: WebhookPatch): Promise<WebhookRow> {
      const changes = {
        ...(patch.url !== undefined ? { url: await checkWebhookUrl(patch.url, options) } : {}),
        ...(patch.events !== undefined ? { events: encodeEventTypes(checkEventTypes(patch.events)) } : {}),
        ...(patch.description !== undefined
          ? { description: patch.description?.trim() ? patch.description.trim() : null }
          : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      };
      const row = await repo.update(owner, id, changes, now());
      if (!row) throw notFound(id);
      return row;
    },

    async delete(owner: WebhookOwner, id: number): Promise<WebhookRow> {
      const row = await owned(owner, id);
      if (!(await repo.delete(owner, id))) throw notFound(id);
      return row;
    },

    /** A new secret, shown once; the previous one signs beside it for 24 h. */
    async rotateSecret(
      owner: WebhookOwner,
      id: number,
    ): Promise<{ secret: string; previousExpiresAt: number }> {
      const secret = newWebhookSecret();
      const at = now();
      if (!(await repo.rotateSecret(owner, id, secret, at, ROTATION_OVERLAP_MS))) throw notFound(id);
      return { secret, previousExpiresAt: at + ROTATION_OVERLAP_MS };
    },

    async deliveries(
      owner: WebhookOwner,
      id: number,
      filter: { status?: WebhookDeliveryStatus | undefined },
      page: { limit: number; offset: number },
    ) {
      await owned(owner, id);
      return deliveries.list(id, filter.status ? { status: filter.status } : {}, page, now());
    },

    async delivery(owner: WebhookOwner, id: number, deliveryId: number): Promise<DeliveryRow> {
      await owned(owner, id);
      const row = await deliveries.find(id, deliveryId);
      if (!row)
        throw new ProblemError('delivery_not_found', `Webhook ${id} has no delivery with id ${deliveryId}.`);
      return row;
    },

    /** Sends a delivery again, with a fresh run of retries. */
    async redeliver(owner: WebhookOwner, id: number, deliveryId: number): Promise<DeliveryRow> {
      await owned(owner, id);
      if (!(await deliveries.redeliver(id, deliveryId, now())))
        throw new ProblemError('delivery_not_found', `Webhook ${id} has no delivery with id ${deliveryId}.`);
      return this.delivery(owner, id, deliveryId);
    },

    /** Queues every event since `since` the webhook subscribed to and may receive (30 days back at most). */
    async replay(owner: WebhookOwner, id: number, since: number) {
      await owned(owner, id);
      const at = now();
      if (!Number.isFinite(since) || since < at - DELIVERY_RETENTION_MS || since > at)
        throw new ProblemError(
          'unprocessable',
          'A replay starts within the last 30 days and not in the future.',
        );
      const result = await dispatcher.replay(id, since, at, REPLAY_MAX);
      return {
        queued: result.queued,
        complete: result.complete,
        next_since:
          result.complete || result.lastCreatedAt === null
            ? null
            : new Date(result.lastCreatedAt).toISOString(),
      };
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;

import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Database, WebhooksTable } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { ownedBy, type WebhookOwner } from './owner.js';

export type WebhookRow = Selectable<WebhooksTable>;

export interface NewWebhook {
  url: string;
  /** the `events` column (rules.ts encodeEventTypes) */
  events: string;
  description: string | null;
}

export interface WebhookChanges {
  url?: string;
  events?: string;
  description?: string | null;
  enabled?: boolean;
}

const ofAccount = (accountId: number) => (eb: ExpressionBuilder<Database, 'webhooks'>) =>
  eb.or([
    eb('webhooks.user_id', '=', accountId),
    eb(
      'webhooks.app_id',
      'in',
      eb.selectFrom('oauth_apps').select('oauth_apps.id').where('oauth_apps.owner_id', '=', accountId),
    ),
  ]);

/** The owner of a row, to act on it with the owner-scoped statements. */
export const ownerOfRow = (row: WebhookRow): WebhookOwner =>
  row.app_id !== null ? { appId: row.app_id } : { userId: row.user_id ?? 0 };

/** Webhooks and their secrets: every statement names the owner, so another's id is never found. */
export function webhooksRepo(db: Kysely<Database>) {
  const owned = (owner: WebhookOwner) => db.selectFrom('webhooks').selectAll().where(ownedBy(owner));

  return {
    create(owner: WebhookOwner, fields: NewWebhook, secret: string, now: number): Promise<WebhookRow> {
      return writeTransaction(db, async (trx) => {
        const row = await trx
          .insertInto('webhooks')
          .values({
            app_id: owner.appId ?? null,
            user_id: owner.userId ?? null,
            ...fields,
            disabled_reason: null,
            created_at: now,
            updated_at: now,
            failing_since: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('webhook_secrets')
          .values({ webhook_id: row.id, secret, created_at: now, expires_at: null })
          .execute();
        return row;
      });
    },

    async list(owner: WebhookOwner, page: { limit: number; offset: number }) {
      const [rows, count] = await Promise.all([
        owned(owner).orderBy('id').limit(page.limit).offset(page.offset).execute(),
        db
          .selectFrom('webhooks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where(ownedBy(owner))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    /** The portal's view: a developer's own webhooks (their keys') and those of their apps. */
    listForAccount(accountId: number): Promise<WebhookRow[]> {
      return db.selectFrom('webhooks').selectAll().where(ofAccount(accountId)).orderBy('id').execute();
    },

    findForAccount(accountId: number, id: number): Promise<WebhookRow | undefined> {
      return db
        .selectFrom('webhooks')
        .selectAll()
        .where(ofAccount(accountId))
        .where('id', '=', id)
        .executeTakeFirst();
    },

    find(owner: WebhookOwner, id: number): Promise<WebhookRow | undefined> {
      return owned(owner).where('id', '=', id).executeTakeFirst();
    },

    /** Applies the changes; turning a webhook on again clears why it was off and its failure run. */
    update(owner: WebhookOwner, id: number, changes: WebhookChanges, now: number) {
      const { enabled, ...fields } = changes;
      return db
        .updateTable('webhooks')
        .set({
          ...fields,
          ...(enabled === undefined
            ? {}
            : enabled
              ? { enabled: 1, disabled_reason: null, failing_since: null }
              : { enabled: 0, disabled_reason: 'owner' }),
          updated_at: now,
        })
        .where(ownedBy(owner))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    async delete(owner: WebhookOwner, id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('webhooks')
        .where(ownedBy(owner))
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /**
     * A new current secret; the previous ones keep signing until `now + overlapMs` (those already
     * past their end are dropped). False when the webhook is not the owner's.
     */
    rotateSecret(owner: WebhookOwner, id: number, secret: string, now: number, overlapMs: number) {
      return writeTransaction(db, async (trx) => {
        const found = await trx
          .selectFrom('webhooks')
          .select('id')
          .where(ownedBy(owner))
          .where('id', '=', id)
          .executeTakeFirst();
        if (!found) return false;
        await trx
          .deleteFrom('webhook_secrets')
          .where('webhook_id', '=', id)
          .where('expires_at', '<=', now)
          .execute();
        await trx
          .updateTable('webhook_secrets')
          .set({ expires_at: now + overlapMs })
          .where('webhook_id', '=', id)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now + overlapMs)]))
          .execute();
        await trx
          .insertInto('webhook_secrets')
          .values({ webhook_id: id, secret, created_at: now, expires_at: null })
          .execute();
        await trx.updateTable('webhooks').set({ updated_at: now }).where('id', '=', id).execute();
        return true;
      });
    },

    /** The secrets that sign now, newest first (two during a rotation's overlap). */
    async liveSecrets(webhookId: number, now: number): Promise<string[]> {
      const rows = await db
        .selectFrom('webhook_secrets')
        .select('secret')
        .where('webhook_id', '=', webhookId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('id', 'desc')
        .execute();
      return rows.map((row) => row.secret);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
